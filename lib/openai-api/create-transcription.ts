import type { RequestTags } from "./request-tags";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import { readAudioUpload, transcribeUpload } from "@/lib/ai/speech/transcribe-audio";
import { aiSettings } from "@/lib/ai/settings";
import { AppError } from "@/lib/errors";
import { chargeKey, requireKeyModel } from "./key-models";
import { TRANSCRIPTION_TEXT_FIELDS, transcriptionFields } from "./schemas";

/** ISO 639-1 codes as the English names OpenAI's verbose_json gives (the common ones; others keep the code). */
const LANGUAGE_NAMES: Record<string, string> = {
  en: "english",
  de: "german",
  fr: "french",
  es: "spanish",
  it: "italian",
  pt: "portuguese",
  nl: "dutch",
  pl: "polish",
  ru: "russian",
  uk: "ukrainian",
  ja: "japanese",
  zh: "chinese",
  ko: "korean",
  ar: "arabic",
  hi: "hindi",
  tr: "turkish",
  sv: "swedish",
  da: "danish",
  no: "norwegian",
  fi: "finnish",
  cs: "czech",
  el: "greek",
  he: "hebrew",
};

/**
 * POST /v1/audio/transcriptions: multipart with the recording in `file` (OpenAI's field), checked by
 * content, charged like the session API's speech to text. `prompt` and `temperature` are accepted
 * and not used; response_format json, text or verbose_json.
 */
export async function createTranscription(input: { key: ApiKeyPrincipal; slot?: ChargeSlot | null; req: Request; tags?: RequestTags }) {
  const upload = await readAudioUpload(input.req, { fileField: "file", textFields: TRANSCRIPTION_TEXT_FIELDS });
  const parsed = transcriptionFields.safeParse(upload.fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue.path.join(".");
    throw new AppError("validation_failed", `Invalid body: ${param}: ${issue.message}`, { param });
  }
  const fields = parsed.data;
  const model = requireKeyModel(input.key, fields.model ?? aiSettings().transcriptionModel, "transcription");
  const { result, duration, credits, remaining } = await transcribeUpload({
    userId: input.key.userId,
    apiKey: chargeKey(input.key),
    slot: input.slot,
    upload,
    model: model.id,
    metadata: { ...input.tags },
    signal: input.req.signal,
  });
  const seconds = Math.round(duration * 100) / 100;
  const format = fields.response_format;
  const answer =
    format === "text"
      ? result.text
      : format === "verbose_json"
        ? {
            task: "transcribe",
            language: LANGUAGE_NAMES[result.language] ?? result.language,
            duration: seconds,
            text: result.text,
            segments: [],
            usage: { type: "duration", seconds },
          }
        : { text: result.text, usage: { type: "duration" as const, seconds } };
  return { credits: { credits, remaining }, answer };
}
