import { unknownV1Path } from "@/lib/http/unknown-path";

/** Every /v1/* path no route serves answers OpenAI's error shape (404), not Next's HTML page. */
export const dynamic = "force-dynamic";

// Only the request is passed on (Next's second argument is its route context).
const answer = (req: Request) => unknownV1Path(req);

export { answer as GET, answer as POST, answer as PUT, answer as PATCH, answer as DELETE };
