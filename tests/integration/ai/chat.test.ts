import { describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/ai/chat/route";
import { db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { balanceOf, ledger, setBalance, stubProviderForFile } from "./ai-test-kit";

/** Parsed JSON of arbitrary shape (wire payloads). */

type Loose = any;

const stub = await stubProviderForFile();

const chat = (cookie: string | undefined, body: unknown) => call(POST, { path: "/api/ai/chat", cookie, body });
const hello = { messages: [{ role: "user", content: "Hello there" }] };

describe("POST /api/ai/chat (single)", () => {
  it("answers 401 without a session and charges nothing", async () => {
    const res = await chat(undefined, hello);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
    expect(stub.count()).toBe(0);
  });

  it("answers 404 when PUBLIC_AI_LLM_CHAT_ENABLED is false", async () => {
    const { cookie } = await signIn();
    const undo = setEnv({ PUBLIC_AI_LLM_CHAT_ENABLED: "false" });
    try {
      const res = await chat(cookie, hello);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found", code: "feature_disabled" });
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
  });

  it("answers 405 for GET", async () => {
    const res = await call(GET, { path: "/api/ai/chat" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("relays the provider's answer, model and usage and charges exactly 15 credits", async () => {
    const { user, cookie } = await signIn();
    const res = await chat(cookie, {
      ...hello,
      model: "gpt-4o",
      temperature: 0.2,
      maxTokens: 50,
      systemPrompt: "Be brief.",
      context: "The user is testing.",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      text: "stub reply to: Hello there",
      model: "gpt-4o",
      usage: { promptTokens: expect.any(Number), completionTokens: 5 },
      cost: 15,
    });
    expect(res.body.usage.promptTokens).toBeGreaterThan(0);
    expect(res.headers.get("x-cache")).toBe("MISS");
    expect(await balanceOf(user.id)).toBe(185);
    const rows = await ledger(user.id);
    expect(rows.map((r) => [r.type, r.amount, r.operation])).toEqual([["usage", -15, "chat"]]);
    expect(rows[0].balanceAfter).toBe(185);
    const sent = stub.requests[0].body;
    expect(sent.model).toBe("gpt-4o");
    expect(sent.temperature).toBe(0.2);
    expect(sent.max_tokens).toBe(50);
    expect(sent.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "system", content: "Context for the conversation:\nThe user is testing." },
      { role: "user", content: "Hello there" },
    ]);
    expect(stub.requests[0].headers.authorization).toBe("Bearer sk-test-stub");
  });

  it("uses AI_CHAT_MODEL when no model is given (a model of the catalog, here one added by AI_MODELS)", async () => {
    const { cookie } = await signIn();
    const undo = setEnv({
      AI_CHAT_MODEL: "my-default-model",
      AI_MODELS: JSON.stringify({
        "my-default-model": {
          kind: "chat",
          vendor: "openai",
          contextWindow: 8000,
          maxOutputTokens: 1000,
          perMillionTokens: { input: 1, output: 2 },
        },
      }),
    });
    try {
      const res = await chat(cookie, hello);
      expect(res.status).toBe(200);
      expect(stub.requests[0].body.model).toBe("my-default-model");
    } finally {
      undo();
    }
  });

  it.each([
    [{}, /messages/],
    [{ messages: [] }, /messages: at least one message/],
    [{ messages: [{ role: "robot", content: "x" }] }, /messages\.0\.role/],
    [{ messages: [{ role: "user", content: 5 }] }, /messages\.0\.content/],
    [{ messages: [{ role: "user", content: "x", name: "Jane Doe" }] }, /messages\.0\.name: must be 1 to 64 letters/],
    [{ ...hello, temperature: 2.5 }, /temperature/],
    [{ ...hello, temperature: -0.1 }, /temperature/],
    [{ ...hello, maxTokens: 0 }, /maxTokens/],
    [{ ...hello, maxTokens: 1.5 }, /maxTokens/],
    [{ ...hello, cacheTTL: -5 }, /cacheTTL/],
    [{ ...hello, cache: "yes" }, /cache/],
    [{ ...hello, model: "not-a-model" }, /model "not-a-model" is not available; use one of gpt-4o-mini/],
  ])("answers 400 for %j without charging or calling upstream", async (body, message) => {
    const { user, cookie } = await signIn();
    const res = await chat(cookie, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await balanceOf(user.id)).toBe(200);
    expect(stub.count()).toBe(0);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const { cookie } = await signIn();
    const res = await call(POST, { path: "/api/ai/chat", cookie, rawBody: "{nope", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/not valid JSON/);
  });

  it("answers 402 with no upstream call when credits are insufficient", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 14);
    const res = await chat(cookie, hello);
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/Insufficient credits: this operation costs 15, you have 14 available/);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(14);
  });

  it("refunds and answers 503 with a clear message when the provider fails (every route down)", async () => {
    const { user, cookie } = await signIn();
    stub.next("chat", { kind: "error", status: 503 });
    const res = await chat(cookie, hello);
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("AI provider failed with status 503 (chat completion)");
    expect(await balanceOf(user.id)).toBe(200);
    const rows = await ledger(user.id);
    expect(rows.map((r) => [r.type, r.amount])).toEqual([
      ["usage", -15],
      ["refund", 15],
    ]);
  });

  it("answers 429 with Retry-After and refunds when the provider throttles", async () => {
    const { user, cookie } = await signIn();
    stub.next("chat", { kind: "error", status: 429, code: "rate_limit_exceeded", retryAfter: "12" });
    const res = await chat(cookie, hello);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("12");
    expect(res.body.error).toBe("AI provider is rate limiting requests; try again in 12 seconds (chat completion)");
    expect(await balanceOf(user.id)).toBe(200);
    const rows = await ledger(user.id);
    expect(rows.map((r) => [r.type, r.amount])).toEqual([
      ["usage", -15],
      ["refund", 15],
    ]);
  });

  it("maps a rejected API key and an unusable answer to clear 500s: the rejected call refunded, the unusable 200 answer charged its prompt", async () => {
    const { user, cookie } = await signIn();
    stub.next("chat", { kind: "error", status: 401, code: "invalid_api_key" });
    expect((await chat(cookie, hello)).body.error).toBe("AI provider rejected the configured API key (chat completion)");
    expect(await balanceOf(user.id)).toBe(200);
    stub.next("chat", { kind: "garbage" });
    const res = await chat(cookie, hello);
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/AI provider/);
    // The provider answered 200: it had the request, and may bill it (the prompt: one credit here, never the flat 15).
    expect(await balanceOf(user.id)).toBe(199);
  });

  it("answers 400 when the provider refuses for content policy, charging the prompt it billed (a 200 refusal), at most the flat price", async () => {
    const { user, cookie } = await signIn();
    stub.next("chat", { kind: "refuse" });
    const res = await chat(cookie, hello);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("The chat completion was refused by the AI provider's content policy");
    expect(await balanceOf(user.id)).toBe(199);
    // A refusal as an error status (400 content_policy_violation) is not billed: refunded.
    stub.next("chat", { kind: "error", status: 400, code: "content_policy_violation" });
    expect((await chat(cookie, hello)).status).toBe(400);
    expect(await balanceOf(user.id)).toBe(199);
  });

  it("times out after AI_TIMEOUT_MS and answers 503, charging what the provider may bill (its prompt), never the flat price", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ AI_TIMEOUT_MS: "300" });
    try {
      stub.next("chat", { kind: "hang" });
      const started = Date.now();
      const res = await chat(cookie, hello);
      expect(res.status).toBe(503);
      expect(res.body.error).toBe("AI provider did not answer the chat completion within 300 ms");
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      undo();
    }
    expect(await balanceOf(user.id)).toBe(199);
  });

  it("serves an identical cached request from the user's cache without an upstream call, charging 15", async () => {
    const { user, cookie } = await signIn();
    const body = { ...hello, cache: true, cacheTTL: 60 };
    const first = await chat(cookie, body);
    const second = await chat(cookie, body);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("x-cache")).toBe("HIT");
    expect(stub.count("chat")).toBe(1);
    expect(await balanceOf(user.id)).toBe(170);

    // A different request, or no cache flag, goes upstream.
    await chat(cookie, { ...body, temperature: 1 });
    await chat(cookie, hello);
    expect(stub.count("chat")).toBe(3);

    // Another user never sees this user's cache.
    const other = await signIn();
    await chat(other.cookie, body);
    expect(stub.count("chat")).toBe(4);
  });

  it("marks each batch item served from the cache (charged like any answer)", async () => {
    const { cookie } = await signIn();
    const cachedItem = { messages: [{ role: "user", content: "batch cache" }], cache: true, cacheTTL: 60 };
    const first = await chat(cookie, { requests: [cachedItem] });
    expect(first.body.results[0]).toMatchObject({ cached: false, cost: 15 });
    const calls = stub.count("chat");
    const second = await chat(cookie, { requests: [cachedItem, { messages: [{ role: "user", content: "fresh" }] }] });
    expect(second.body.results.map((r: Loose) => r.cached)).toEqual([true, false]);
    expect(second.body.cost).toBe(30);
    expect(stub.count("chat")).toBe(calls + 1);
  });

  it("does not serve an expired cache entry", async () => {
    const { user, cookie } = await signIn();
    const body = { ...hello, cache: true, cacheTTL: 60 };
    await chat(cookie, body);
    const prisma = await db();
    await prisma.aiResponseCache.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await chat(cookie, body);
    expect(res.headers.get("x-cache")).toBe("MISS");
    expect(stub.count("chat")).toBe(2);
  });

  it("answers 500 'not configured' in production without OPENAI_API_KEY and charges nothing", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ APP_ENV: "production", OPENAI_API_KEY: undefined, CRON_SECRET: "cron-secret" });
    try {
      const res = await chat(cookie, hello);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: "AI provider is not configured: set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GEMINI_API_KEY, AI_PROVIDERS)",
        code: "provider_not_configured",
      });
    } finally {
      undo();
    }
    expect(await balanceOf(user.id)).toBe(200);
    expect(await ledger(user.id)).toEqual([]);
  });

  it("answers offline (labelled) without OPENAI_API_KEY outside production, charging 15", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ OPENAI_API_KEY: undefined });
    try {
      const res = await chat(cookie, hello);
      expect(res.status).toBe(200);
      expect(res.body.text).toMatch(/^\[offline\] /);
      expect(res.body.text).toContain('"Hello there"');
      expect(res.body.model).toBe("offline-gpt-4o-mini");
      expect(res.body.cost).toBe(15);
      const again = await chat(cookie, hello);
      expect(again.body.text).toBe(res.body.text);
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(170);
  });
});

describe("POST /api/ai/chat (charging rules)", () => {
  it("never lets concurrent requests take the balance below zero", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 40);
    const results = await Promise.all(Array.from({ length: 5 }, () => chat(cookie, hello)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402]);
    expect(await balanceOf(user.id)).toBe(10);
    expect(stub.count("chat")).toBe(2);
  });

  it("charges nothing in classic_saas mode (no credit system) and reports cost 0", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    try {
      const res = await chat(cookie, hello);
      expect(res.status).toBe(200);
      expect(res.body.cost).toBe(0);
    } finally {
      undo();
    }
    expect(await balanceOf(user.id)).toBe(200);
  });
});

describe("POST /api/ai/chat (batch)", () => {
  it("runs 1-10 requests concurrently and charges 15 per answered item", async () => {
    const { user, cookie } = await signIn();
    stub.setDefault("chat", { kind: "delay", ms: 300 });
    const requests = Array.from({ length: 5 }, (_, i) => ({ messages: [{ role: "user", content: `question ${i}` }] }));
    const started = Date.now();
    const res = await chat(cookie, { requests });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1400); // 5 x 300 ms in sequence would take 1500
    expect(res.body.cost).toBe(75);
    expect(res.body.results).toHaveLength(5);
    res.body.results.forEach((r: Loose, i: number) =>
      expect(r).toMatchObject({ text: `stub reply to: question ${i}`, cost: 15, cached: false }),
    );
    expect(await balanceOf(user.id)).toBe(125);
    const arrivals = stub.requests.map((r) => r.at);
    expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(250);
  });

  it("refunds failed items and reports their error in place", async () => {
    const { user, cookie } = await signIn();
    stub.next("chat", { kind: "error", status: 500 });
    const requests = [
      { messages: [{ role: "user", content: "a" }] },
      { messages: [{ role: "user", content: "b" }] },
      { messages: [{ role: "user", content: "c" }] },
    ];
    const res = await chat(cookie, { requests });
    expect(res.status).toBe(200);
    const errors = res.body.results.filter((r: Loose) => "error" in r);
    expect(errors).toEqual([{ error: "AI provider failed with status 500 (chat completion)", code: "unavailable" }]);
    expect(res.body.cost).toBe(30);
    expect(await balanceOf(user.id)).toBe(170);
    const rows = await ledger(user.id);
    expect(rows.map((r) => [r.type, r.amount, r.operation])).toEqual([
      ["usage", -45, "chat_batch"],
      ["refund", 15, "chat_batch"],
    ]);
  });

  it("refunds everything when every item fails", async () => {
    const { user, cookie } = await signIn();
    stub.setDefault("chat", { kind: "error", status: 500 });
    const res = await chat(cookie, { requests: [hello, hello] });
    expect(res.status).toBe(200);
    expect(res.body.cost).toBe(0);
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("answers 402 before any upstream call when the whole batch is not covered", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 40);
    const res = await chat(cookie, { requests: [hello, hello, hello] });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/costs 45, you have 40/);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(40);
  });

  it.each([
    [{ requests: [] }, /requests: at least one request/],
    [{ requests: Array.from({ length: 11 }, () => hello) }, /requests: at most 10 requests/],
    [{ requests: [hello, { messages: [{ role: "user", content: "x" }], temperature: 9 }] }, /requests\.1\.temperature/],
    [{ requests: "all" }, /requests/],
  ])("answers 400 for an invalid batch %#", async (body, message) => {
    const { user, cookie } = await signIn();
    const res = await chat(cookie, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(200);
  });
});
