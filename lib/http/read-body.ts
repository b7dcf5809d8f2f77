import { AppError } from "@/lib/errors";

/** Bodies as the route wrapper reads them: bounded while reading, JSON or form fields. */
export const DEFAULT_MAX_JSON_BODY_BYTES = 1024 * 1024;
/** Reads a body of at most `limit` bytes, refusing larger ones by Content-Length or while reading. */
export async function readBodyBytes(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const tooLarge = () => new AppError("payload_too_large", `Request body too large: the limit is ${limit} bytes`);
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!req.body) return null;
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const BASE64_MARK = Buffer.from(";base64,");
const QUOTE = 0x22;

/**
 * The bytes of a JSON body that are not base64 data (`data:...;base64,...` strings: images): found
 * by a byte search, before anything is decoded or parsed.
 */
export function bytesBesideBase64(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let base64 = 0;
  for (let at = buffer.indexOf(BASE64_MARK); at >= 0; at = buffer.indexOf(BASE64_MARK, at)) {
    const start = at + BASE64_MARK.length;
    const end = buffer.indexOf(QUOTE, start);
    if (end < 0) break;
    base64 += end - start;
    at = end;
  }
  return bytes.byteLength - base64;
}

/**
 * A JSON body within `limit` bytes; with `maxTextBytes`, one whose bytes besides base64 images are
 * over it answers 413 before it is decoded or parsed (a text-only body cannot need the room kept for
 * images).
 */
export async function readJsonBody(req: Request, limit: number, maxTextBytes?: number): Promise<unknown> {
  const bytes = await readBodyBytes(req, limit);
  if (bytes && maxTextBytes !== undefined && bytes.byteLength > maxTextBytes) {
    const text = bytesBesideBase64(bytes);
    if (text > maxTextBytes) {
      throw new AppError(
        "payload_too_large",
        `Request body too large: ${text} bytes besides images; the limit for text is ${maxTextBytes} bytes (more than any offered model's context holds)`,
      );
    }
  }
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("validation_failed", "Invalid body: not valid JSON");
  }
}

export const FORM_TYPES = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/** A form post's text fields (a field sent twice keeps the first; file fields are not text and are dropped). */
export async function readFormBody(req: Request, limit: number): Promise<Record<string, string>> {
  const bytes = await readBodyBytes(req, limit);
  const type = req.headers.get("content-type") ?? "";
  let data: FormData;
  try {
    data = await new Response(bytes ?? new Uint8Array(), { headers: { "content-type": type } }).formData();
  } catch {
    throw new AppError("validation_failed", "Invalid body: the form could not be read");
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of data.entries()) if (typeof value === "string" && !(key in fields)) fields[key] = value;
  return fields;
}

