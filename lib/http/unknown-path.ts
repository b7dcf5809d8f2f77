import { requestIdOf } from "./handler";
import { errorResponse } from "./respond";

/** The answer for an /api/* path that no route serves (app/api/[...path]/route.ts). */
export async function unknownApiPath(req: Request): Promise<Response> {
  return errorResponse(404, `Not found: no API endpoint at ${new URL(req.url).pathname.slice(0, 200)}`, {
    "cache-control": "no-store",
    "x-request-id": requestIdOf(req),
  });
}
