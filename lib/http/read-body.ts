import { AppError } from "@/lib/errors";

/** Bodies as the route wrapper reads them: bounded while reading, JSON or form fields. */
export const DEFAULT_MAX_JSON_BODY_BYTES = 1024 * 1024;

const BASE64_MARK = Buffer.from(";base64,");
const QUOTE = 0x22;
const EMPTY = Buffer.alloc(0);

/**
 * Counts, as a JSON body streams in, its bytes that are not base64 data (`data:...;base64,...`
 * strings: images), by a byte search across chunk boundaries: the text of a body is known without
 * buffering, decoding or parsing it.
 */
export class TextBesideBase64 {
  total = 0;
  private base64 = 0;
  private inBase64 = false;
  /** The end of the last chunk's text, in case the marker was cut between two chunks. */
  private carry: Buffer = EMPTY;

  get text(): number {
    return this.total - this.base64;
  }

  push(chunk: Uint8Array): void {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.total += buf.length;
    let i = 0;
    while (i < buf.length) {
      if (this.inBase64) {
        const end = buf.indexOf(QUOTE, i);
        if (end < 0) {
          this.base64 += buf.length - i;
          return;
        }
        this.base64 += end - i;
        this.inBase64 = false;
        i = end;
        continue;
      }
      // A marker cut between the last chunk and this one: only the joint is copied and searched.
      let joint = EMPTY;
      if (this.carry.length) {
        joint = Buffer.concat([this.carry, buf.subarray(i, i + BASE64_MARK.length - 1)]);
        const cut = joint.indexOf(BASE64_MARK);
        const carried = this.carry.length;
        this.carry = EMPTY;
        if (cut >= 0) {
          i += cut + BASE64_MARK.length - carried;
          this.inBase64 = true;
          continue;
        }
      }
      const at = buf.indexOf(BASE64_MARK, i);
      if (at < 0) {
        // Keep the text's last bytes (from the joint when this chunk is shorter than a marker).
        const rest = buf.length - i >= BASE64_MARK.length - 1 ? buf.subarray(i) : joint.length ? joint : buf.subarray(i);
        this.carry = Buffer.from(rest.subarray(Math.max(0, rest.length - (BASE64_MARK.length - 1))));
        return;
      }
      i = at + BASE64_MARK.length;
      this.inBase64 = true;
    }
  }
}

/** The bytes of a whole JSON body that are not base64 data. */
export function bytesBesideBase64(bytes: Uint8Array): number {
  const counter = new TextBesideBase64();
  counter.push(bytes);
  return counter.text;
}

/**
 * Reads a body of at most `limit` bytes, refusing larger ones by Content-Length or while reading;
 * with `maxTextBytes`, also one whose bytes besides base64 images pass it, as soon as they do (a
 * text-only body cannot need the room kept for images: it is neither kept nor read to its end).
 */
export async function readBodyBytes(req: Request, limit: number, maxTextBytes?: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const tooLarge = () => new AppError("payload_too_large", `Request body too large: the limit is ${limit} bytes`);
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!req.body) return null;
  const reader = req.body.getReader();
  const text = maxTextBytes !== undefined && maxTextBytes < limit ? new TextBesideBase64() : null;
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
    if (text) {
      text.push(value);
      if (text.text > (maxTextBytes as number)) {
        await reader.cancel().catch(() => undefined);
        throw new AppError(
          "payload_too_large",
          `Request body too large: more than ${maxTextBytes} bytes besides images; the limit for text is ${maxTextBytes} bytes (more than any offered model's context holds)`,
        );
      }
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

/**
 * A JSON body within `limit` bytes, and its size as read (chunked bodies declare none); with
 * `maxTextBytes`, one whose bytes besides base64 images pass it answers 413 as soon as they do
 * (readBodyBytes).
 */
export async function readJsonBody(req: Request, limit: number, maxTextBytes?: number): Promise<{ value: unknown; size: number }> {
  const bytes = await readBodyBytes(req, limit, maxTextBytes);
  const size = bytes?.byteLength ?? 0;
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  if (isLargeBody(size)) await yieldToEventLoop();
  if (text.trim() === "") return { value: undefined, size };
  try {
    return { value: JSON.parse(text), size };
  } catch {
    throw new AppError("validation_failed", "Invalid body: not valid JSON");
  }
}

/** A body large enough that each step over it (decode, parse, checks) takes milliseconds. */
export const LARGE_BODY_BYTES = 1024 * 1024;
export const isLargeBody = (bytes: number) => bytes > LARGE_BODY_BYTES;

/**
 * Lets other requests run between two steps over a large body: several such bodies arriving at once
 * then take turns with everything else instead of holding the event loop one after another.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
