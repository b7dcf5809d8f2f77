import { z } from "zod";
import { transcribeAudio } from "@/lib/ai/speech/transcribe-audio";
import { aiRoute, methods } from "@/lib/http/route";
import { transcriptionResponse } from "@/lib/ai/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: aiRoute(
    {
      feature: "aiAudio",
      summary: "Speech to text (20 credits)",
      description:
        "multipart/form-data with the file field `audio` (WebM, WAV, MP3, M4A, OGG or FLAC, at most 25 MB) and an optional `language` (ISO 639-1 hint).",
      errors: [413],
      consumes: "multipart/form-data",
      bodyDoc: z.object({
        audio: z.string().meta({ format: "binary", description: "the recording: WebM, WAV, MP3, M4A, OGG or FLAC, at most 25 MB" }),
        language: z
          .string()
          .regex(/^[a-z]{2}$/)
          .optional()
          .meta({ description: "ISO 639-1 hint" }),
      }),
      response: transcriptionResponse,
    },
    ({ user, account, aiSlot, req }) => transcribeAudio({ userId: user.id, account, slot: aiSlot, req }),
  ),
});
