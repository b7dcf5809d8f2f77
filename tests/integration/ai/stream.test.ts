import { describe, expect, it } from "vitest";
import { waitUntil } from "@/tests/helpers/wait-until";
import { POST } from "@/app/api/ai/stream/route";
import { renderOfflineImage } from "@/lib/ai/providers/provider-offline";
import { grantBonusPurchase } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { balanceOf, ledger, parseEvents, readSse, setBalance, stubProviderForFile, waitForBalance } from "./ai-test-kit";

const stub = await stubProviderForFile();

const PNG = `data:image/png;base64,${renderOfflineImage("tiny", "1024x1024", false).toString("base64")}`;
const hello = { messages: [{ role: "user", content: "Tell me a story" }] };
const stream = (cookie: string | undefined, body: unknown, signal?: AbortSignal) =>
  send(POST, { path: "/api/ai/stream", cookie, body, signal });

function nextMonthUnix(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
}

describe("POST /api/ai/stream", () => {
  it("answers 401 without a session and 404 when chat is disabled", async () => {
    expect((await call(POST, { path: "/api/ai/stream", body: hello })).status).toBe(401);
    const { cookie } = await signIn();
    const undo = setEnv({ PUBLIC_AI_LLM_CHAT_ENABLED: "false" });
    try {
      expect((await call(POST, { path: "/api/ai/stream", body: hello, cookie })).status).toBe(404);
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
  });

  it("streams text chunks, then the meta event, then [DONE], charging 20 credits", async () => {
    const { user, cookie } = await signIn();
    // Paced like a model: each word its own read, so each its own event (a burst arrives as one).
    stub.chunkDelayMs = 5;
    const res = await stream(cookie, { ...hello, systemPrompt: "Be nice.", temperature: 1, maxTokens: 100 });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(res.headers.get("x-ratelimit-limit")).toBe("200");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("180");
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBe(nextMonthUnix());
    const events = await readSse(res);
    const texts = events.filter((e) => e.json?.type === "text");
    expect(texts.length).toBeGreaterThan(2);
    expect(texts.map((e) => e.json.text).join("")).toBe("stub reply to: Tell me a story");
    expect(events.at(-2)).toEqual({
      event: "meta",
      data: JSON.stringify({ creditsUsed: 20, creditsRemaining: 180 }),
      json: { creditsUsed: 20, creditsRemaining: 180 },
    });
    expect(events.at(-1)?.data).toBe("[DONE]");
    expect(await balanceOf(user.id)).toBe(180);
    const sent = stub.requests[0].body;
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
    expect(sent.messages[0]).toEqual({ role: "system", content: "Be nice." });
    expect(sent.temperature).toBe(1);
    expect(sent.max_tokens).toBe(100);
    // Settled with the provider's token counts on the ledger row.
    const rows = await ledger(user.id);
    expect(rows.map((r) => [r.type, r.amount, r.operation])).toEqual([["usage", -20, "stream"]]);
    expect(rows[0].metadata).toMatchObject({ promptTokens: expect.any(Number), completionTokens: 7 });
  });

  it("X-RateLimit-* of a paid user drawing on bonus credits: allocation + spendable bonus left, reset one month after the last", async () => {
    const { user, cookie } = await signIn();
    const prisma = await db();
    const lastReset = new Date(Date.now() - 3 * 86_400_000);
    await prisma.user.update({ where: { id: user.id }, data: { tier: "pro", bonusCreditsAutoUse: true } });
    await prisma.creditBalance.update({
      where: { userId: user.id },
      data: { subscriptionCredits: 5, monthlyAllocation: 1000, resetAt: lastReset },
    });
    await grantBonusPurchase({ userId: user.id, orderId: `allowance-${user.id}`, variantId: "v", credits: 100 });
    const res = await stream(cookie, hello);
    expect(res.status).toBe(200);
    // 20 credits: 5 from the subscription, 15 from the bonus purchase (85 left).
    expect(res.headers.get("x-ratelimit-limit")).toBe(String(1000 + 85));
    expect(res.headers.get("x-ratelimit-remaining")).toBe("85");
    const nextReset = new Date(lastReset);
    nextReset.setUTCMonth(nextReset.getUTCMonth() + 1);
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBe(Math.floor(nextReset.getTime() / 1000));
    await readSse(res);
  });

  it("charges 30 credits when a message carries an image part, relayed as image_url", async () => {
    const { user, cookie } = await signIn();
    const res = await stream(cookie, {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", image: PNG },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.find((e) => e.event === "meta")?.json).toEqual({ creditsUsed: 30, creditsRemaining: 170 });
    expect(await balanceOf(user.id)).toBe(170);
    expect(stub.requests[0].body.messages[0].content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url: PNG } },
    ]);
    expect((await ledger(user.id))[0].operation).toBe("stream_image");
  });

  it.each([
    [
      { messages: [{ role: "user", content: [{ type: "image", image: "https://example.com/cat.png" }] }] },
      /messages\.0\.content.*data URL/,
    ],
    [
      { messages: [{ role: "user", content: [{ type: "image", image: "data:image/png;base64,SGVsbG8gd29ybGQhIQ==" }] }] },
      /not a png image/,
    ],
    [
      { messages: [{ role: "user", content: [{ type: "image", image: `data:image/png;base64,${"A".repeat(7_000_000)}` }] }] },
      /at most 5242880 bytes/,
    ],
    [{ messages: [{ role: "user", content: Array.from({ length: 5 }, () => ({ type: "image", image: PNG })) }] }, /at most 4 images/],
    [{ messages: [{ role: "user", content: [{ type: "video", url: "x" }] }] }, /messages\.0\.content/],
    [{ messages: [{ role: "user", content: [] }] }, /messages\.0\.content/],
    [{ messages: [] }, /at least one message/],
    [{ ...hello, temperature: 3 }, /temperature/],
    [{ ...hello, model: "gpt-unknown" }, /model "gpt-unknown" is not available/],
  ])("answers 400 for invalid input %# without charging", async (body, message) => {
    const { user, cookie } = await signIn();
    const res = await call(POST, { path: "/api/ai/stream", cookie, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await balanceOf(user.id)).toBe(200);
    expect(stub.count()).toBe(0);
  });

  it("answers 402 before any upstream call (30 needed for images)", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 25);
    const res = await call(POST, {
      path: "/api/ai/stream",
      cookie,
      body: { messages: [{ role: "user", content: [{ type: "image", image: PNG }] }] },
    });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/costs 30, you have 25/);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(25);
  });

  it("answers a JSON 503 and refunds when the provider fails before streaming", async () => {
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "error", status: 502 });
    const res = await call(POST, { path: "/api/ai/stream", cookie, body: hello });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: "AI provider failed with status 502 (chat completion)", code: "unavailable" });
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("answers a JSON 429 with Retry-After and refunds when the provider throttles before streaming", async () => {
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "error", status: 429, code: "rate_limit_exceeded", retryAfter: "5" });
    const res = await call(POST, { path: "/api/ai/stream", cookie, body: hello });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(res.body).toEqual({
      error: "AI provider is rate limiting requests; try again in 5 seconds (chat completion)",
      code: "rate_limited",
    });
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("answers 400 when the provider refuses inside its answer, charging the prompt it bills (one credit, not the flat price)", async () => {
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "refuse" });
    const res = await call(POST, { path: "/api/ai/stream", cookie, body: hello });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/content policy/);
    expect(await balanceOf(user.id)).toBe(199);
  });

  it("sends an error event and charges only what was delivered when the upstream stream breaks mid-way", async () => {
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "break", afterChunks: 2 });
    const res = await stream(cookie, hello);
    expect(res.status).toBe(200);
    const events = await readSse(res);
    // The two chunks sent before the break (one event or two, as they arrived).
    expect(
      events
        .filter((e) => e.json?.type === "text")
        .map((e) => e.json.text)
        .join(""),
    ).toBe("stub reply ");
    expect(events.at(-1)?.json).toEqual({ type: "error", error: expect.stringMatching(/AI provider/) });
    expect(events.some((e) => e.data === "[DONE]" || e.event === "meta")).toBe(false);
    // Two chunks delivered: their price (a fraction of a credit) rounds up to the least charge, 1.
    expect(await balanceOf(user.id)).toBe(199);
    expect((await ledger(user.id)).map((r) => [r.type, r.amount])).toEqual([
      ["usage", -20],
      ["refund", 19],
    ]);
  });

  it("aborts the upstream request when the client disconnects mid-stream: text reached the client, so the flat price", async () => {
    const { user, cookie } = await signIn();
    stub.chunkDelayMs = 40;
    stub.next("stream", { kind: "reply", text: Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ") });
    const client = new AbortController();
    const res = await stream(cookie, hello, client.signal);
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"type":"text"');
    client.abort();
    await reader.cancel();
    await stub.waitForClientClose(1, 3000);
    expect(stub.streams.completed).toBe(0);
    expect(stub.streams.active).toBe(0);
    // Flat: a stream that delivered any text costs its price, whoever cut it.
    await waitForBalance(user.id, 180);
  });

  it("charges the prompt when the client disconnects while the model has not answered yet (the provider had the request)", async () => {
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "hang" });
    const client = new AbortController();
    const before = stub.count("stream");
    const pending = call(POST, { path: "/api/ai/stream", cookie, body: hello, signal: client.signal });
    await waitUntil("the provider to have the request", () => stub.count("stream") > before);
    client.abort();
    const res = await pending;
    expect(res.status).toBe(400);
    await waitUntil("the provider to see its client leave", () => stub.abandoned === 1);
    expect(await balanceOf(user.id)).toBe(199);
  });

  it("charges the prompt when the client disconnects after the upstream answered but before any text", async () => {
    const { user, cookie } = await signIn();
    stub.chunkDelayMs = 1000;
    const client = new AbortController();
    const pending = call(POST, { path: "/api/ai/stream", cookie, body: hello, signal: client.signal });
    await waitUntil("the upstream stream to open", () => stub.streams.opened === 1);
    client.abort();
    const res = await pending;
    expect(res.status).toBe(400);
    await stub.waitForClientClose(1);
    expect(await balanceOf(user.id)).toBe(199);
  });

  it("sends an error event when the upstream stalls past AI_TIMEOUT_MS mid-stream; text reached the client, so the flat price", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ AI_TIMEOUT_MS: "400" });
    try {
      stub.chunkDelayMs = 150;
      stub.next("stream", { kind: "reply", text: "one two three four five six seven eight nine ten" });
      const events = await readSse(await stream(cookie, hello));
      expect(events.filter((e) => e.json?.type === "text").length).toBeGreaterThan(0);
      expect(events.at(-1)?.json).toEqual({ type: "error", error: "AI provider did not answer the chat completion within 400 ms" });
    } finally {
      undo();
    }
    await stub.waitForClientClose(1);
    expect(await balanceOf(user.id)).toBe(180);
  });

  it("streams a labelled offline answer in several chunks without OPENAI_API_KEY", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ OPENAI_API_KEY: undefined });
    try {
      const res = await stream(cookie, hello);
      const events = parseEvents(await res.text());
      const texts = events.filter((e) => e.json?.type === "text").map((e) => e.json.text);
      expect(texts.length).toBeGreaterThanOrEqual(3);
      expect(texts.join("")).toMatch(/^\[offline\] .*"Tell me a story"/);
      expect(events.at(-2)?.json).toEqual({ creditsUsed: 20, creditsRemaining: 180 });
      expect(events.at(-1)?.data).toBe("[DONE]");
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(180);
  });
});
