import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as chatPost } from "@/app/api/ai/chat/route";
import { POST as streamPost } from "@/app/api/ai/stream/route";
import { GET as routesGet } from "@/app/api/admin/ai/routes/route";
import { closeDb, db } from "@/lib/db/client";
import { findModel } from "@/lib/ai/catalog/models";
import { costMicros } from "@/lib/ai/pricing/price-call";
import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { startAnthropicStub, type AnthropicStub } from "@/tests/helpers/anthropic-stub";
import { startGeminiStub, type GeminiStub } from "@/tests/helpers/gemini-stub";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { balanceOf, readSse, setBalance } from "./ai-test-kit";

/**
 * Routing with fallback through the real routes: gpt-4o is served by OpenAI, then Anthropic (priced as
 * claude-haiku-4-5 when it answers), then Gemini (priced as gemini-2.5-flash). A route failing before
 * anything reached the client hands the call on; the charge is settled at the price of the route that
 * answered; a stream that has produced text is never retried; no route left: 503 and a full refund.
 */
let openai: OpenAiStub;
let anthropic: AnthropicStub;
let gemini: GeminiStub;
let restore: () => void;
const ROUTES = {
  "gpt-4o": ["openai", { provider: "anthropic", model: "claude-haiku-4-5" }, { provider: "gemini", model: "gemini-2.5-flash" }],
};

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startOpenAiStub(), startAnthropicStub(), startGeminiStub()]);
  restore = setEnv({
    OPENAI_API_KEY: "sk-openai",
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: "sk-ant",
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: "gk",
    GEMINI_BASE_URL: gemini.url,
    AI_ROUTES: JSON.stringify(ROUTES),
    AI_PRICING_MODE: "metered",
    CREDIT_VALUE_USD: "0.00001",
  });
});
afterEach(() => {
  openai.reset();
  anthropic.reset();
  gemini.reset();
});
afterAll(async () => {
  restore();
  await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
  await closeDb();
});

const body = { messages: [{ role: "user", content: "Hello" }], model: "gpt-4o", maxTokens: 100 };
const credits = (micros: number) => Math.max(1, Math.ceil(micros / 10));
const priced = (model: string, prompt: number, completion: number) =>
  costMicros(findModel(model) as NonNullable<ReturnType<typeof findModel>>, { promptTokens: prompt, completionTokens: completion });

async function rich() {
  const session = await signIn();
  await setBalance(session.user.id, 1_000_000);
  return session;
}

async function lastCharge(userId: string) {
  const op = await (await db()).creditOperation.findFirstOrThrow({ where: { userId, kind: "charge" }, orderBy: { createdAt: "desc" } });
  return { op, metadata: (op.details as { metadata: Record<string, unknown> }).metadata };
}

describe("fallback between routes", () => {
  it("a 500 from the first route hands the call to the second, charged at the second route's price", async () => {
    const { user, cookie } = await rich();
    openai.next("chat", { kind: "error", status: 500 });
    anthropic.usage = { input: 100, output: 40 };
    const res = await call(chatPost, { path: "/api/ai/chat", cookie, body });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe("stub reply to: Hello");
    expect(openai.count()).toBe(1);
    expect(anthropic.requests[0].body).toMatchObject({ model: "claude-haiku-4-5", max_tokens: 100 });
    const cost = credits(priced("claude-haiku-4-5", 100, 40));
    expect(res.body.cost).toBe(cost);
    const { op, metadata } = await lastCharge(user.id);
    expect(op).toMatchObject({ status: "settled", amount: cost, model: "claude-haiku-4-5" });
    expect(metadata).toMatchObject({ provider: "anthropic", model: "claude-haiku-4-5", promptTokens: 100, completionTokens: 40 });
    expect(await balanceOf(user.id)).toBe(1_000_000 - cost);
  });

  it("a 429 with Retry-After, a 529 overloaded and a refused connection each move on at once", async () => {
    const { cookie } = await rich();
    openai.next("chat", { kind: "error", status: 429, retryAfter: "20" });
    anthropic.next("messages", { kind: "error", status: 529 });
    const started = Date.now();
    const res = await call(chatPost, { path: "/api/ai/chat", cookie, body });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    expect([openai.count(), anthropic.count(), gemini.count()]).toEqual([1, 1, 1]);

    const undo = setEnv({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    try {
      const refused = await call(chatPost, { path: "/api/ai/chat", cookie, body });
      expect(refused.status).toBe(200);
      expect(anthropic.count()).toBe(2);
    } finally {
      undo();
    }
  });

  it("a route that does not start answering within AI_ROUTE_TIMEOUT_MS is left for the next, and both attempts are paid (the first provider had the request)", async () => {
    const { user, cookie } = await rich();
    const undo = setEnv({ AI_ROUTE_TIMEOUT_MS: "300" });
    try {
      openai.next("chat", { kind: "hang" });
      anthropic.usage = { input: 100, output: 40 };
      const res = await call(chatPost, { path: "/api/ai/chat", cookie, body });
      expect(res.status).toBe(200);
      expect(anthropic.count()).toBe(1);
      // The reservation covered two attempts of the dearest route; the charge is the answer plus the abandoned prompt.
      const { op, metadata } = await lastCharge(user.id);
      expect(metadata).toMatchObject({ provider: "anthropic", attempts: 2 });
      expect(op.amount).toBeGreaterThan(credits(priced("claude-haiku-4-5", 100, 40)));
      expect(Number((op.details as { reserved: number }).reserved)).toBeGreaterThanOrEqual(op.amount);
      openai.next("stream", { kind: "hang" });
      const events = await readSse(await send(streamPost, { method: "POST", path: "/api/ai/stream", cookie, body }));
      expect(
        events
          .filter((e) => e.json?.type === "text")
          .map((e) => e.json.text)
          .join(""),
      ).toBe("stub reply to: Hello");
      expect(anthropic.count()).toBe(2);
    } finally {
      undo();
    }
  });

  it("honours Retry-After before asking the same provider again, within the call's deadline", async () => {
    const { cookie } = await rich();
    const undo = setEnv({ AI_ROUTES: JSON.stringify({ "gpt-4o": ["openai"] }), AI_ROUTE_ATTEMPTS: "2" });
    try {
      openai.next("chat", { kind: "error", status: 429, retryAfter: "1" });
      const started = Date.now();
      const res = await call(chatPost, { path: "/api/ai/chat", cookie, body });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(openai.count()).toBe(2);
      // A Retry-After longer than the deadline is not waited for: the throttle is the answer (429).
      const short = setEnv({ AI_TIMEOUT_MS: "2000" });
      try {
        openai.next("chat", { kind: "error", status: 429, retryAfter: "30" });
        const throttled = await call(chatPost, { path: "/api/ai/chat", cookie, body });
        expect(throttled.status).toBe(429);
        expect(throttled.headers.get("retry-after")).toBe("30");
      } finally {
        short();
      }
    } finally {
      undo();
    }
  });

  it("every route throttled: 429 with the shortest Retry-After of them, and a full refund", async () => {
    const { user, cookie } = await rich();
    openai.next("chat", { kind: "error", status: 429, retryAfter: "20" });
    anthropic.next("messages", { kind: "error", status: 429, retryAfter: "7" });
    gemini.next("generate", { kind: "error", status: 429, retryAfter: "12" });
    const res = await call(chatPost, { path: "/api/ai/chat", cookie, body });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.body.error).toMatch(/try again in 7 seconds/);
    expect(await balanceOf(user.id)).toBe(1_000_000);
  });

  it("a provider's Retry-After holds across the cycle: it is not asked again before that time; the one free soonest goes next", async () => {
    const { cookie } = await rich();
    const undo = setEnv({
      AI_ROUTES: JSON.stringify({ "gpt-4o": ["openai", { provider: "anthropic", model: "claude-haiku-4-5" }] }),
      AI_ROUTE_ATTEMPTS: "3",
    });
    try {
      openai.next("chat", { kind: "error", status: 429, retryAfter: "1" });
      anthropic.next("messages", { kind: "error", status: 429, retryAfter: "3" });
      const started = Date.now();
      const res = await call(chatPost, { path: "/api/ai/chat", cookie, body });
      expect(res.status).toBe(200);
      expect([openai.count(), anthropic.count()]).toEqual([2, 1]);
      const [first, second] = openai.requests.map((r) => r.at);
      expect(second - first).toBeGreaterThanOrEqual(950);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    } finally {
      undo();
    }
  });

  it("every route down: 503 naming each, and a full refund", async () => {
    const { user, cookie } = await rich();
    openai.next("chat", { kind: "error", status: 500 });
    anthropic.next("messages", { kind: "error", status: 503 });
    gemini.next("generate", { kind: "error", status: 500 });
    const res = await call(chatPost, { path: "/api/ai/chat", cookie, body });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe(
      "No AI provider could answer after 3 attempts (openai: server error; anthropic: overloaded; gemini: server error)",
    );
    expect(await balanceOf(user.id)).toBe(1_000_000);
    expect((await lastCharge(user.id)).op.status).toBe("refunded");
  });
});

describe("streams", () => {
  it("fall back before the first text, then report the answering route's price in the meta event", async () => {
    const { user, cookie } = await rich();
    openai.next("stream", { kind: "error", status: 502 });
    gemini.usage = { input: 60, output: 20 };
    anthropic.next("messages", { kind: "error", status: 500 });
    anthropic.next("stream", { kind: "error", status: 500 });
    const events = await readSse(await send(streamPost, { method: "POST", path: "/api/ai/stream", cookie, body }));
    expect(
      events
        .filter((e) => e.json?.type === "text")
        .map((e) => e.json.text)
        .join(""),
    ).toBe("stub reply to: Hello");
    const cost = credits(priced("gemini-2.5-flash", 60, 20));
    expect(events.find((e) => e.event === "meta")?.json).toEqual({ creditsUsed: cost, creditsRemaining: 1_000_000 - cost });
    expect((await lastCharge(user.id)).metadata).toMatchObject({ provider: "gemini", model: "gemini-2.5-flash" });
  });

  it("a stream cut after its first chunk is not retried, and is charged for what was delivered", async () => {
    const { user, cookie } = await rich();
    openai.next("stream", { kind: "break", afterChunks: 1 });
    const events = await readSse(await send(streamPost, { method: "POST", path: "/api/ai/stream", cookie, body }));
    expect(events.filter((e) => e.json?.type === "text")).toHaveLength(1);
    expect(events.at(-1)?.json?.type).toBe("error");
    expect(anthropic.count() + gemini.count()).toBe(0);
    const { op, metadata } = await lastCharge(user.id);
    expect(metadata).toMatchObject({ partial: true, provider: "openai" });
    expect(op.amount).toBeGreaterThan(0);
    expect(op.amount).toBeLessThan(credits(priced("gpt-4o", 10, 100)));
  });
});

describe("GET /api/admin/ai/routes", () => {
  it("shows each model's routes in order with their recent calls, errors and latency, and no key", async () => {
    const undo = setEnv({ ADMIN_API_TOKEN: "routes-admin-token-0123456789abcdef0123" });
    try {
      const res = await call(routesGet, {
        path: "/api/admin/ai/routes",
        headers: { authorization: "Bearer routes-admin-token-0123456789abcdef0123" },
      });
      expect(res.status).toBe(200);
      expect(res.body.providers.map((p: { name: string }) => p.name).sort()).toEqual(["anthropic", "gemini", "openai"]);
      const gpt4o = res.body.models.find((m: { model: string }) => m.model === "gpt-4o");
      expect(gpt4o.routes.map((r: { provider: string; model: string }) => [r.provider, r.model])).toEqual([
        ["openai", "gpt-4o"],
        ["anthropic", "claude-haiku-4-5"],
        ["gemini", "gemini-2.5-flash"],
      ]);
      // The earlier tests made the first route fail several times: its recent error rate shows it.
      expect(gpt4o.routes[0].stats.errors).toBeGreaterThan(0);
      expect(gpt4o.routes[1].stats.calls).toBeGreaterThan(0);
      expect(res.text).not.toContain("sk-ant");
      expect(res.text).not.toContain("sk-openai");
    } finally {
      undo();
    }
  });
});
