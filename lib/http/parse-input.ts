import { z, type ZodType } from "zod";
import { AppError } from "@/lib/errors";
import { DEFAULT_MAX_JSON_BODY_BYTES, FORM_TYPES, isLargeBody, readFormBody, readJsonBody, yieldToEventLoop } from "./read-body";
import type { AuthMode, RouteSpec } from "./route-types";
import { findUnsafeText } from "./unsafe-text";

const UNSAFE_TEXT_MESSAGE = "must not contain NUL characters or unpaired surrogates";
const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

function invalidInput(error: z.ZodError, where: "body" | "query"): AppError {
  const first = error.issues[0]?.path;
  return new AppError("validation_failed", describeIssues(error, where), { param: first?.length ? first.join(".") : undefined });
}

function describeIssues(error: z.ZodError, where: "body" | "query"): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join(".") : where;
    return `${field}: ${issue.message}`;
  });
  return `Invalid ${where}: ${parts.join("; ")}`;
}

function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (!(key in out)) out[key] = value;
  return out;
}

/**
 * A request's query and body as the route declares them: NUL characters and unpaired surrogates
 * refused anywhere, the body read within its bound (JSON, or form fields for bodyFormat "form"),
 * each checked by its schema; a 400 names the first field at fault (`param`).
 */
export async function parseInput(spec: RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>, req: Request, url: URL) {
  const rawQuery = queryObject(url);
  const unsafeQuery = findUnsafeText(rawQuery);
  if (unsafeQuery) throw new AppError("validation_failed", `Invalid query: ${unsafeQuery}: ${UNSAFE_TEXT_MESSAGE}`);
  let query: unknown = undefined;
  if (spec.query) {
    const parsed = spec.query.safeParse(rawQuery);
    if (!parsed.success) throw invalidInput(parsed.error, "query");
    query = parsed.data;
  }
  let body: unknown = undefined;
  let bodyFormat: "json" | "form" = "json";
  if (spec.body) {
    const limit = spec.maxBodyBytes ?? DEFAULT_MAX_JSON_BODY_BYTES;
    const type = req.headers.get("content-type") ?? "";
    if (spec.bodyFormat === "form" && FORM_TYPES.test(type)) bodyFormat = "form";
    // JSON only as JSON: a text/plain or form body is what a cross-site form can send without asking.
    else if (type && !JSON_TYPE.test(type)) {
      throw new AppError(
        "unsupported_media_type",
        `Unsupported Content-Type "${type.split(";")[0].trim().slice(0, 100)}": send the body as application/json`,
      );
    }
    // Form bodies are small text fields; a JSON body's size is what was read (chunked ones declare none).
    const { value: raw, size } =
      bodyFormat === "form" ? { value: await readFormBody(req, limit), size: 0 } : await readJsonBody(req, limit, spec.maxTextBytes?.());
    if (raw !== undefined && !type) throw new AppError("unsupported_media_type", "Missing Content-Type: send the body as application/json");
    const large = isLargeBody(size);
    const unsafeBody = findUnsafeText(raw);
    if (unsafeBody) throw new AppError("validation_failed", `Invalid body: ${unsafeBody}: ${UNSAFE_TEXT_MESSAGE}`);
    if (large) await yieldToEventLoop();
    const parsed = spec.body.safeParse(raw);
    if (!parsed.success) throw invalidInput(parsed.error, "body");
    body = parsed.data;
    if (large) await yieldToEventLoop();
  }
  return { query, body, bodyFormat };
}
