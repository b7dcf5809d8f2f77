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

export async function readJsonBody(req: Request, limit: number): Promise<unknown> {
  const bytes = await readBodyBytes(req, limit);
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

