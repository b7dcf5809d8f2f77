import { Readable } from "node:stream";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import busboy from "busboy";
import { AppError } from "@/lib/errors";
import { openCharge, type ChargeAccount, type ChargeKey } from "../pricing/ai-charge";
import { AUDIO_EXTENSIONS, AUDIO_MIME, detectAudioFormat, extensionOf, formatForExtension, measureAudio, type AudioFormat } from "../audio";
import { oneShotFailure, runChargedCall } from "../charged-call";
import { billOneShot } from "../pricing/meter";
import { aiProvider, type TranscriptionResult } from "../providers/provider";
import { quoteTranscriptionRoutes } from "../pricing/quote-routes";
import { aiSettings } from "../settings";

export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;
/** Room for multipart boundaries, part headers and small fields on top of the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

export interface AudioUpload {
  bytes: Buffer;
  filename: string;
  format: AudioFormat;
  mimeType: string;
  language?: string;
  /** The other text fields the caller asked for (the /v1 API's model, response_format, ...). */
  fields: Record<string, string>;
}

export interface AudioUploadOptions {
  /** The file's multipart field: "audio" (SPEC's endpoint) or "file" (OpenAI's). */
  fileField?: string;
  /** Text fields to keep besides `language` (at most 1 KB each). */
  textFields?: readonly string[];
}

const tooLarge = () => new AppError("payload_too_large", "Audio file is larger than 25 MB");
const accepted = Object.values(AUDIO_EXTENSIONS)
  .map((e) => `.${e[0]}`)
  .join(", ");

/**
 * Reads the multipart file field (`audio`, or as the options say) and an optional `language` field
 * (an ISO 639-1 hint) without
 * ever holding more than 25 MB: a Content-Length over the limit is refused before reading, and the
 * bytes are counted while busboy streams the body, which is abandoned at the limit (413).
 */
export async function readAudioUpload(req: Request, options: AudioUploadOptions = {}): Promise<AudioUpload> {
  const field = options.fileField ?? "audio";
  const keep = new Set(options.textFields ?? []);
  const contentType = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data/i.test(contentType)) {
    throw new AppError("validation_failed", `No file: send multipart/form-data with the recording in the field "${field}"`, {
      param: field,
    });
  }
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_AUDIO_BYTES + MULTIPART_OVERHEAD) throw tooLarge();
  if (!req.body)
    throw new AppError("validation_failed", `No file: the multipart body is empty; send the recording in the field "${field}"`, {
      param: field,
    });

  const source = Readable.fromWeb(req.body as unknown as NodeWebReadableStream<Uint8Array>);
  const parsed = await new Promise<{ chunks: Buffer[]; filename: string; language?: string; fields: Record<string, string> } | null>(
    (resolve, reject) => {
      let settled = false;
      const fail = (error: AppError) => {
        if (settled) return;
        settled = true;
        source.unpipe();
        source.destroy();
        reject(error);
      };
      let bb: busboy.Busboy;
      try {
        bb = busboy({
          headers: { "content-type": contentType },
          // busboy emits `limit` on REACHING fileSize: one byte over 25 MB is the first refused size.
          limits: { fileSize: MAX_AUDIO_BYTES + 1, files: 3, fields: 10, fieldSize: 1024, parts: 20 },
        });
      } catch {
        return reject(new AppError("validation_failed", "Invalid multipart body: missing boundary"));
      }
      let total = 0;
      source.on("data", (chunk: Buffer) => {
        total += chunk.length;
        if (total > MAX_AUDIO_BYTES + MULTIPART_OVERHEAD) fail(tooLarge());
      });
      source.on("error", () => fail(new AppError("validation_failed", "Invalid multipart body: the upload was interrupted")));
      let audio: { chunks: Buffer[]; filename: string } | null = null;
      let language: string | undefined;
      const fields: Record<string, string> = {};
      let audioAsText = false;
      bb.on("file", (name, stream, info) => {
        // A body cut in the middle of a part fails the part's stream too ("Unexpected end of form"):
        // without a listener that error would escape as an uncaught exception.
        stream.on("error", () => fail(new AppError("validation_failed", "Invalid multipart body: it ends in the middle of a part")));
        if (name !== field || audio) {
          stream.resume();
          return;
        }
        const file = { chunks: [] as Buffer[], filename: info.filename ?? "" };
        audio = file;
        stream.on("data", (chunk: Buffer) => file.chunks.push(chunk));
        stream.on("limit", () => fail(tooLarge()));
      });
      bb.on("field", (name, value) => {
        if (name === "language") language = value.trim().toLowerCase();
        else if (keep.has(name) && !(name in fields)) fields[name] = value;
        if (name === field) audioAsText = true;
      });
      bb.on("error", () => fail(new AppError("validation_failed", "Invalid multipart body")));
      bb.on("close", () => {
        if (settled) return;
        settled = true;
        if (!audio && audioAsText)
          return reject(
            new AppError("validation_failed", `No file: the field "${field}" must be a file upload, not a text value`, { param: field }),
          );
        resolve(audio ? { ...(audio as { chunks: Buffer[]; filename: string }), language, fields } : null);
      });
      source.pipe(bb);
    },
  );

  if (!parsed) throw new AppError("validation_failed", `No file: the multipart field "${field}" is missing`, { param: field });
  const bytes = Buffer.concat(parsed.chunks);
  if (bytes.length === 0) throw new AppError("validation_failed", `No file: the "${field}" file is empty`, { param: field });
  if (parsed.language !== undefined && !/^[a-z]{2}$/.test(parsed.language)) {
    throw new AppError("validation_failed", "Invalid body: language must be an ISO 639-1 code such as en", { param: "language" });
  }
  const byContent = detectAudioFormat(bytes.subarray(0, 64));
  const byName = formatForExtension(extensionOf(parsed.filename));
  if (!byName) {
    throw new AppError(
      "validation_failed",
      `Invalid format: file name "${parsed.filename || "(none)"}" must end in one of ${accepted} (WebM, WAV, MP3, M4A, OGG or FLAC)`,
      { param: field },
    );
  }
  if (!byContent) {
    throw new AppError("validation_failed", "Invalid format: the file content is not WebM, WAV, MP3, M4A, OGG or FLAC audio", {
      param: field,
    });
  }
  if (byContent !== byName) {
    throw new AppError(
      "validation_failed",
      `Invalid format: the file is named .${extensionOf(parsed.filename)} but its content is ${byContent.toUpperCase()}`,
      { param: field },
    );
  }
  return {
    bytes,
    filename: parsed.filename,
    format: byContent,
    mimeType: AUDIO_MIME[byContent],
    language: parsed.language,
    fields: parsed.fields,
  };
}

/**
 * One charged transcription of a validated upload: the recording's length is measured from its data
 * (lib/ai/audio: frames and samples, never a declared duration; what cannot be measured at the
 * format's lowest bit rate) and its price quoted and reserved before the provider call (flat: 20
 * credits, refusing recordings longer than that pays for; 402 without an upstream call). Settled at
 * the duration the provider reports (the measured one when it reports none); refunded when the
 * provider never had it or answered an error; charged the measured length when it was cut after the
 * provider had it (the client left, the deadline passed).
 */
export async function transcribeUpload(input: {
  userId: string;
  apiKey?: ChargeKey;
  account?: ChargeAccount;
  slot?: ChargeSlot | null;
  upload: AudioUpload;
  /** Ledger metadata the caller adds (a /v1 request's tags). */
  metadata?: Record<string, unknown>;
  model?: string;
  signal?: AbortSignal;
}): Promise<{ result: TranscriptionResult; duration: number; credits: number; remaining: number }> {
  const { upload } = input;
  const provider = aiProvider();
  const model = input.model ?? aiSettings().transcriptionModel;
  const length = await measureAudio(upload.format, upload.bytes);
  // Providers bill by the second, rounded up.
  const seconds = Math.ceil(length.seconds);
  const quote = quoteTranscriptionRoutes(model, { seconds, operation: "speech_to_text" });
  const charge = await openCharge({
    userId: input.userId,
    apiKey: input.apiKey,
    account: input.account,
    slot: input.slot,
    operation: "speech_to_text",
    quote,
    metadata: {
      ...input.metadata,
      format: upload.format,
      bytes: upload.bytes.length,
      provider: provider.name,
      measuredSeconds: Math.round(length.measured * 100) / 100,
    },
  });
  const { value: result, settled } = await runChargedCall({
    charge,
    signal: input.signal,
    call: (signal) =>
      provider.transcribe({
        model,
        audio: upload.bytes,
        filename: upload.filename,
        mimeType: upload.mimeType,
        language: upload.language,
        signal,
      }),
    // The provider bills the duration it decoded; without one, what the recording measured.
    answered: (r) => {
      const reported = r.duration > 0;
      return {
        attempts: billOneShot(
          quote,
          { route: r.route ?? null, usage: { audioSeconds: reported ? r.duration : seconds }, reported },
          undefined,
          r.spent,
        ),
        complete: true,
      };
    },
    failed: (error) => oneShotFailure(quote, error),
    settle: (r) => ({ model: r.model }),
  });
  const duration = result.duration > 0 ? result.duration : Math.round(length.measured * 1000) / 1000;
  return { result, duration, credits: settled.credits, remaining: settled.remaining };
}

/** POST /api/ai/speech-to-text: the upload is validated first (a bad request is a 400 whatever the provider's state). */
export async function transcribeAudio(input: {
  userId: string;
  account?: ChargeAccount;
  slot?: ChargeSlot | null;
  req: Request;
}): Promise<{ text: string; language: string; duration: number }> {
  const upload = await readAudioUpload(input.req);
  const { result, duration } = await transcribeUpload({
    userId: input.userId,
    account: input.account,
    slot: input.slot,
    upload,
    signal: input.req.signal,
  });
  return { text: result.text, language: result.language, duration };
}
