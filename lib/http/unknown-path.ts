import { requestIdOf } from "./request-id";
import { errorResponse } from "./respond";

/**
 * The answer for an /api/* path that no route serves (app/api/[...path]/route.ts), and for operator
 * routes asked by anyone else (the same answer, so nothing tells them apart).
 */
export async function unknownApiPath(req: Request, requestId: string = requestIdOf(req)): Promise<Response> {
  return errorResponse(404, `Not found: no API endpoint at ${new URL(req.url).pathname.slice(0, 200)}`, {
    "cache-control": "no-store",
    "x-request-id": requestId,
  });
}
