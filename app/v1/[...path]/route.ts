import { unknownV1Path } from "@/lib/http/unknown-path";

/** Every /v1/* path no route serves answers OpenAI's error shape (404), not Next's HTML page. */
export const dynamic = "force-dynamic";

export { unknownV1Path as GET, unknownV1Path as POST, unknownV1Path as PUT, unknownV1Path as PATCH, unknownV1Path as DELETE };
