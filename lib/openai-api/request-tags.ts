import { z } from "zod";
import { AppError } from "@/lib/errors";

/**
 * What a /v1 request says about itself for the ledger (docs/API-NOTES.md "Request tags"): OpenAI's
 * `user` (an end-user id) and `metadata` (at most 16 string pairs) in the body, and the
 * `X-Request-Tags` header (comma-separated, at most 10 tags of 1-64 letters, digits, `_ . : -`).
 * Stored on the call's ledger rows (metadata.tags, metadata.endUser, metadata.requestMetadata), and
 * grouped by in GET /api/usage.
 */
export const TAG_HEADER = "x-request-tags";
const TAG = /^[A-Za-z0-9_.:-]{1,64}$/;
export const MAX_TAGS = 10;

/** The body fields, as the /v1 schemas accept them. */
export const endUserField = z.string().max(256, "must be at most 256 characters").nullish();
export const requestMetadataField = z
  .record(z.string().min(1).max(64, "keys must be at most 64 characters"), z.string().max(512, "values must be at most 512 characters"), {
    error: "must be an object of string values",
  })
  .refine((m) => Object.keys(m).length <= 16, "at most 16 keys")
  .nullish();

export interface RequestTags {
  tags?: string[];
  endUser?: string;
  requestMetadata?: Record<string, string>;
}

/** The request's tags (400 naming the header when it is malformed). */
export function requestTags(req: Request, body?: { user?: string | null; metadata?: Record<string, string> | null }): RequestTags {
  const out: RequestTags = {};
  const header = req.headers.get(TAG_HEADER);
  if (header !== null) {
    const tags = [
      ...new Set(
        header
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      ),
    ];
    const bad = tags.find((t) => !TAG.test(t));
    if (bad !== undefined || tags.length > MAX_TAGS) {
      throw new AppError(
        "validation_failed",
        bad !== undefined
          ? `Invalid header X-Request-Tags: "${bad.slice(0, 70)}" is not a tag (1 to 64 letters, digits, _ . : or -)`
          : `Invalid header X-Request-Tags: at most ${MAX_TAGS} tags, got ${tags.length}`,
        { param: "X-Request-Tags" },
      );
    }
    if (tags.length) out.tags = tags;
  }
  if (body?.user) out.endUser = body.user;
  if (body?.metadata && Object.keys(body.metadata).length) out.requestMetadata = body.metadata;
  return out;
}
