import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as chat from "@/app/api/ai/chat/route";
import * as stream from "@/app/api/ai/stream/route";
import { chatTextLimitBytes } from "@/lib/ai/pricing/chat-text-limit";
import { bytesBesideBase64 } from "@/lib/http/read-body";
import { db } from "@/lib/db/client";
import { INVALID_AI_REQUESTS } from "@/lib/ratelimit/ai-slot/invalid-ai-requests";
import { databaseStore } from "@/lib/ratelimit/database-store";
import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { balanceOf, stubProviderForFile } from "./ai-test-kit";

/**
 * What keeps one account from tying up the AI routes for free: a cap on AI requests in progress per
 * user (held in the rate-limit store, here the database), invalid requests counted and past a limit
 * refused, and a text-only body too large for any model refused before it is parsed.
 */
const stub = await stubProviderForFile();
const hi = { messages: [{ role: "user", content: "hi" }] };

const until = async (check: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe("AI requests in progress per user", () => {
  it("refuses a user's request past AI_MAX_CONCURRENT_PER_USER with 429, never another user's, and frees the slot when an answer ends", async () => {
    const restore = setEnv({ AI_MAX_CONCURRENT_PER_USER: "2" });
    try {
      const { user, cookie } = await signIn();
      stub.next("chat", { kind: "delay", ms: 400 }, 2);
      const pending = [
        call(chat.POST, { path: "/api/ai/chat", cookie, body: hi }),
        call(chat.POST, { path: "/api/ai/chat", cookie, body: hi }),
      ];
      await until(() => stub.count("chat") === 2);
      const balance = await balanceOf(user.id);
      const third = await call(chat.POST, { path: "/api/ai/chat", cookie, body: hi });
      expect(third.status).toBe(429);
      expect(third.body).toEqual({ error: expect.stringContaining("at most 2 at once"), code: "rate_limited" });
      expect(third.headers.get("retry-after")).toBe("1");
      expect(stub.count("chat")).toBe(2);
      // Refused before anything was charged.
      expect(await balanceOf(user.id)).toBe(balance);
      const other = await signIn();
      expect((await call(chat.POST, { path: "/api/ai/chat", cookie: other.cookie, body: hi })).status).toBe(200);
      expect((await Promise.all(pending)).map((r) => r.status)).toEqual([200, 200]);
      expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hi })).status).toBe(200);
    } finally {
      restore();
    }
  });

  it("holds a stream's slot until the stream has been read to its end (or its reader leaves)", async () => {
    const restore = setEnv({ AI_MAX_CONCURRENT_PER_USER: "1" });
    try {
      const { cookie } = await signIn();
      const open = await send(stream.POST, { path: "/api/ai/stream", cookie, body: hi });
      expect(open.status).toBe(200);
      expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hi })).status).toBe(429);
      await open.text();
      await new Promise((r) => setTimeout(r, 50));
      expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hi })).status).toBe(200);
      // A reader that leaves: cancelling the body frees the slot too.
      const left = await send(stream.POST, { path: "/api/ai/stream", cookie, body: hi });
      await left.body?.cancel();
      await new Promise((r) => setTimeout(r, 50));
      expect((await call(chat.POST, { path: "/api/ai/chat", cookie, body: hi })).status).toBe(200);
    } finally {
      restore();
    }
  });

  it("lets a slot lapse at its lease and frees a released one (the embedded database: counted in this process, no row written)", async () => {
    const key = randomUUID();
    const slot = (id: string, leaseMs = 60_000) => databaseStore.acquireSlot({ key, id, cap: 1, leaseMs, nowMs: Date.now() });
    expect(await slot("a", 1)).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(await slot("b")).toBe(true);
    expect(await slot("c")).toBe(false);
    await databaseStore.releaseSlot(key, "b");
    expect(await slot("d")).toBe(true);
    const prisma = await db();
    expect(await prisma.$queryRaw<unknown[]>`SELECT 1 FROM ai_request_slots`).toEqual([]);
  });

  it("holds the cap under a burst: of 20 acquisitions at once with a cap of 5, exactly 5 succeed", async () => {
    const key = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        databaseStore.acquireSlot({ key, id: `${key}-${i}`, cap: 5, leaseMs: 60_000, nowMs: Date.now() }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(5);
  });
});

describe("invalid AI requests", () => {
  it(`refuses a user's AI requests for the rest of the hour after ${INVALID_AI_REQUESTS.limit} invalid ones, valid or not; other users go on`, async () => {
    const { cookie } = await signIn();
    for (let i = 0; i < INVALID_AI_REQUESTS.limit; i++) {
      const res = await call(chat.POST, {
        path: "/api/ai/chat",
        cookie,
        body: { messages: [{ role: "user", content: "x" }], temperature: 9 },
      });
      expect(res.status).toBe(400);
    }
    const over = await call(chat.POST, {
      path: "/api/ai/chat",
      cookie,
      body: { messages: [{ role: "user", content: "x" }], temperature: 9 },
    });
    expect(over.status).toBe(400);
    const valid = await call(chat.POST, { path: "/api/ai/chat", cookie, body: hi });
    expect(valid.status).toBe(429);
    expect(valid.body.error).toMatch(/Too many invalid AI requests/);
    expect(Number(valid.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await signIn();
    expect((await call(chat.POST, { path: "/api/ai/chat", cookie: other.cookie, body: hi })).status).toBe(200);
  }, 60_000);
});

describe("text-only bodies", () => {
  it("refuses a body with more text than any offered model holds with 413 before parsing it, charging and calling nothing", async () => {
    const { user, cookie } = await signIn();
    const limit = chatTextLimitBytes();
    const balance = await balanceOf(user.id);
    const res = await call(stream.POST, {
      path: "/api/ai/stream",
      cookie,
      body: { messages: [{ role: "user", content: "a ".repeat(Math.ceil(limit / 2) + 10) }] },
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toContain(`the limit for text is ${limit} bytes`);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(balance);
  });

  it("counts base64 images out of the text: a body whose size is images passes the text rule", () => {
    const image = "A".repeat(3_000_000);
    const body = Buffer.from(
      JSON.stringify({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "what is this?" },
              { type: "image", image: `data:image/png;base64,${image}` },
            ],
          },
        ],
      }),
    );
    expect(bytesBesideBase64(body)).toBe(body.byteLength - image.length);
    // Base64 that never ends is counted as base64 (the body is then no valid JSON: a 400 once read).
    expect(bytesBesideBase64(Buffer.from('{"a":"x;base64,abc'))).toBe(15);
  });
});

describe("the text counter across chunks", () => {
  it("finds the base64 marker and the closing quote wherever the chunks are cut", async () => {
    const { TextBesideBase64 } = await import("@/lib/http/read-body");
    const image = "QUJD".repeat(5_000);
    const body = Buffer.from(
      JSON.stringify({
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "look" },
              { type: "image", image: `data:image/png;base64,${image}` },
              { type: "image", image: `data:image/jpeg;base64,${image}` },
            ],
          },
        ],
      }),
    );
    for (const size of [1, 3, 7, 8, 9, 64, 1000, body.length]) {
      const counter = new TextBesideBase64();
      for (let at = 0; at < body.length; at += size) counter.push(body.subarray(at, at + size));
      expect(counter.text, `chunks of ${size}`).toBe(body.length - 2 * image.length);
    }
  });
});
