import { generateImage } from "@/lib/ai/images/generate-image";
import { imageBodySchema, imageGenResponse } from "@/lib/ai/schemas";
import { aiRoute, methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: aiRoute(
    {
      feature: "aiImage",
      body: imageBodySchema,
      summary: "Image generation (80 credits)",
      response: imageGenResponse,
    },
    ({ user, account, aiSlot, body, req }) => generateImage({ userId: user.id, account, slot: aiSlot, body, signal: req.signal }),
  ),
});
