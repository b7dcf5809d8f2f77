import { requestIdOf } from "./request-id";
import { openAiErrorResponse } from "./openai-error";
import { errorResponse } from "./respond";

/**
 * The answer for an /api/* path that no route serves (app/api/[...path]/route.ts), and for operator
 * routes asked by anyone else (the same answer, so nothing tells them apart).
 */
export async function unknownApiPath(req: Request, requestId: string = requestIdOf(req)): Promise<Response> {
  return errorResponse(404, `Not found: no API endpoint at ${new URL(req.url).pathname.slice(0, 200)}`, "not_found", {
    "cache-control": "no-store",
    "x-request-id": requestId,
  });
}

/** The same for /v1/* (app/v1/[...path]/route.ts), in OpenAI's error shape. */
export async function unknownV1Path(req: Request): Promise<Response> {
  return openAiErrorResponse({
    code: "not_found",
    message: `Not found: no endpoint at ${new URL(req.url).pathname.slice(0, 200)}; the OpenAI-compatible API serves chat/completions, embeddings, images/generations, audio/transcriptions and models`,
    reason: "unknown_url",
    headers: { "cache-control": "no-store", "x-request-id": requestIdOf(req) },
  });
}
