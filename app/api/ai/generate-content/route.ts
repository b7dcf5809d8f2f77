import { contentBodySchema } from "@/lib/ai/content/content-templates";
import { generateContent } from "@/lib/ai/content/generate-content";
import { sse } from "@/lib/http/respond";
import { aiRoute, methods, streamedAiInput } from "@/lib/http/route";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: aiRoute(
    {
      feature: "aiContent",
      body: contentBodySchema,
      summary: "Template-based content generation, streamed (25 credits)",
      description:
        "Templates email, product_description, blog_outline, social_media, marketing_copy; required fields per template in API-NOTES.md.",
      produces: "text/event-stream",
    },
    async (ctx) => sse(await generateContent(streamedAiInput(ctx))),
  ),
});
