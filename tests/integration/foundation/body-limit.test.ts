import { afterAll, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/ai/chat/route";
import { CHAT_MAX_BODY_BYTES } from "@/lib/ai/schemas";
import { getCreditSummary } from "@/lib/credits";
import { closeDb } from "@/lib/db/client";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

describe("JSON body bound of the route wrapper", () => {
  it("answers 413 when Content-Length declares more than the route's bound, charging nothing", async () => {
    const { user, cookie } = await signIn();
    const before = await getCreditSummary(user.id);
    const res = await call(chat, {
      method: "POST",
      path: "/api/ai/chat",
      cookie,
      rawBody: "{}",
      headers: { "content-type": "application/json", "content-length": String(CHAT_MAX_BODY_BYTES + 1) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: `Request body too large: the limit is ${CHAT_MAX_BODY_BYTES} bytes`, code: "payload_too_large" });
    expect((await getCreditSummary(user.id)).totalUsable).toBe(before.totalUsable);
  });

  it("answers 413 while reading a streamed body without Content-Length that grows past the bound", async () => {
    const { cookie } = await signIn();
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > CHAT_MAX_BODY_BYTES * 3) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await call(chat, {
      method: "POST",
      path: "/api/ai/chat",
      cookie,
      rawBody: body,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(413);
    // Reading stopped soon after the bound instead of draining the whole stream.
    expect(sent).toBeLessThan(CHAT_MAX_BODY_BYTES + 1024 * 1024);
  });
});
