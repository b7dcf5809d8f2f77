import { z } from "zod";
import { methods, v1Route } from "@/lib/http/route";
import { createTranscription } from "@/lib/openai-api/create-transcription";
import { charged } from "@/lib/openai-api/route-spec";
import { requestTags } from "@/lib/openai-api/request-tags";
import { transcriptionResponse } from "@/lib/openai-api/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: v1Route(
    {
      keyKind: "transcription",
      feature: "aiAudio",
      summary: "Speech to text, OpenAI-compatible",
      description:
        "multipart/form-data with the recording in `file` (WebM, WAV, MP3, M4A, OGG or FLAC, checked by content, at most 25 MB). Flat: 20 credits; metered: the duration's cost.",
      consumes: "multipart/form-data",
      bodyDoc: z.object({
        file: z.string().meta({ format: "binary", description: "the recording" }),
        model: z.string().optional(),
        language: z
          .string()
          .regex(/^[a-z]{2}$/)
          .optional()
          .meta({ description: "ISO 639-1 hint" }),
        response_format: z.enum(["json", "text", "verbose_json"]).optional(),
        prompt: z.string().optional().meta({ description: "accepted, not used" }),
        temperature: z.number().optional().meta({ description: "accepted, not used" }),
      }),
      response: transcriptionResponse,
      produces: ["application/json", "text/plain"],
    },
    async ({ apiKey, aiSlot, req }) => charged(await createTranscription({ key: apiKey, slot: aiSlot, req, tags: requestTags(req) })),
  ),
});
