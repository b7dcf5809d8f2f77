import { requestIdOf } from "./request-id";
import { openAiErrorResponse } from "./openai-error";
import { errorResponse } from "./respond";
import { unknownApiPath } from "./unknown-path";
import type { NextRouteHandler } from "./handler";

export const ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof ALL_METHODS)[number];

/**
 * Completes a route file's exports: methods it does not implement answer 405 with `{ error }` and an
 * Allow header (Next's own 405 has no body). On operator routes only operators learn that much;
 * everyone else gets the answer of a path no route serves. Routes of the /v1 API answer in OpenAI's shape.
 *   export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: route(...) });
 */
export function methods(implemented: Partial<Record<Method, NextRouteHandler>>): Record<Method, NextRouteHandler> {
  const allow = ALL_METHODS.filter((m) => implemented[m]).join(", ");
  const guarded = Object.values(implemented).find((h) => h?.visibleTo);
  const openai = Object.values(implemented).some((h) => h?.definition?.dialect === "openai");
  const notAllowed: NextRouteHandler = async (req) => {
    if (guarded?.visibleTo && !(await guarded.visibleTo(req))) return unknownApiPath(req);
    const message = `Method ${req.method} not allowed; use ${allow}`;
    const headers = { allow, "cache-control": "no-store", "x-request-id": requestIdOf(req) };
    return openai
      ? openAiErrorResponse({ code: "method_not_allowed", message, headers })
      : errorResponse(405, message, "method_not_allowed", headers);
  };
  const out = {} as Record<Method, NextRouteHandler>;
  for (const m of ALL_METHODS) out[m] = implemented[m] ?? notAllowed;
  return out;
}
