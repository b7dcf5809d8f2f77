import { contentBodySchema } from "@/lib/ai/content-templates";
import { generateContent } from "@/lib/ai/generate-content";
import { sse } from "@/lib/http/respond";
import { aiRoute, methods } from "@/lib/http/route";
import { SSE_FRAMING } from "@/lib/http/sse";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: aiRoute(
    {
      feature: "aiContent",
      body: contentBodySchema,
      summary: "Template-based content generation, streamed (25 credits)",
      description: "Templates email, product_description, blog_outline, social_media, marketing_copy; required fields per template in API-NOTES.md.",
      produces: "text/event-stream",
    },
    async ({ user, body, req, log }) => {
      const stream = await generateContent({
        userId: user.id,
        body,
        signal: req.signal,
        framing: SSE_FRAMING,
        log,
      });
      return sse(stream);
    },
  ),
});
