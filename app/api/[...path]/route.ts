import { unknownApiPath } from "@/lib/http/unknown-path";

/**
 * Every /api/* path no route serves answers JSON `{ error }` (404), like every other API error,
 * instead of Next's HTML not-found page. Defined routes are more specific and always win.
 */
export const dynamic = "force-dynamic";

export { unknownApiPath as GET, unknownApiPath as POST, unknownApiPath as PUT, unknownApiPath as PATCH, unknownApiPath as DELETE };
