import { unknownApiPath } from "@/lib/http/unknown-path";

/**
 * Every /api/* path no route serves answers JSON `{ error }` (404), like every other API error,
 * instead of Next's HTML not-found page. Defined routes are more specific and always win.
 */
export const dynamic = "force-dynamic";

// Next calls a handler with (request, context): only the request is passed on (the second parameter
// of unknownApiPath is a request id, not Next's context).
const answer = (req: Request) => unknownApiPath(req);

export { answer as GET, answer as POST, answer as PUT, answer as PATCH, answer as DELETE };
