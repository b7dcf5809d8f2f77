import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as chat } from "@/app/api/ai/chat/route";
import { POST as sendEmail } from "@/app/api/email/send/route";
import { GET as file } from "@/app/api/files/[id]/route";
import { GET as scrape } from "@/app/api/metrics/route";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { deliver, orderEvent } from "@/tests/integration/billing/fixtures";
import { metricValue } from "@/tests/helpers/prometheus";

/**
 * GET /api/metrics through the real route, scraped before and after each action: the right series
 * moves by exactly the action's amount, and label sets stay bounded.
 */
let stub: OpenAiStub;
let restore: () => void;

beforeAll(async () => {
  await db();
  stub = await startOpenAiStub();
  restore = setEnv({
    OPENAI_API_KEY: "sk-test-metrics",
    OPENAI_BASE_URL: stub.url,
    AI_CHAT_MODEL: "gpt-test",
    AI_MODELS: JSON.stringify({
      "gpt-test": { kind: "chat", vendor: "openai", contextWindow: 8000, maxOutputTokens: 1000, perMillionTokens: { input: 1, output: 2 } },
    }),
  });
});

afterAll(async () => {
  restore();
  await stub.close();
  await closeDb();
});

async function metricsText(): Promise<string> {
  const res = await call(scrape, { path: "/api/metrics" });
  expect(res.status).toBe(200);
  return res.text;
}

function seriesCount(text: string, name: string): number {
  return text.split("\n").filter((l) => l.startsWith(`${name}{`)).length;
}

describe("GET /api/metrics", () => {
  it("speaks the Prometheus text format with the process defaults", async () => {
    const res = await call(scrape, { path: "/api/metrics" });
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain("# TYPE http_requests_total counter");
    expect(res.text).toContain("process_cpu_user_seconds_total");
    // One process answers for itself (WEB_CONCURRENCY's sum is tested in tests/instances/server-processes.test.ts).
    expect(metricValue(res.text, "server_processes")).toBe(1);
  });

  it("a charged chat: one request, 15 credits charged, one provider call", async () => {
    const { cookie } = await signIn();
    const before = await metricsText();
    const res = await call(chat, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "hello" }] } });
    expect(res.status).toBe(200);
    const after = await metricsText();
    const http = { route: "/api/ai/chat", method: "POST", status: "200" };
    expect(metricValue(after, "http_requests_total", http) - metricValue(before, "http_requests_total", http)).toBe(1);
    expect(
      metricValue(after, "credits_charged_total", { operation: "chat" }) -
        metricValue(before, "credits_charged_total", { operation: "chat" }),
    ).toBe(15);
    const ok = { provider: "openai", model: "gpt-test", endpoint: "chat", outcome: "ok" };
    expect(
      metricValue(after, "ai_provider_request_duration_seconds_count", ok) -
        metricValue(before, "ai_provider_request_duration_seconds_count", ok),
    ).toBe(1);
  });

  it("a failed provider call: one 5xx error, one route attempt that failed over, the charge refunded", async () => {
    const { cookie } = await signIn();
    const before = await metricsText();
    stub.next("chat", { kind: "error", status: 503 });
    const res = await call(chat, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "fail" }] } });
    expect(res.status).toBe(503);
    const after = await metricsText();
    const failed = { provider: "openai", model: "gpt-test", kind: "5xx" };
    expect(metricValue(after, "ai_provider_errors_total", failed) - metricValue(before, "ai_provider_errors_total", failed)).toBe(1);
    const attempt = { model: "gpt-test", provider: "openai", outcome: "failover" };
    expect(metricValue(after, "ai_route_attempts_total", attempt) - metricValue(before, "ai_route_attempts_total", attempt)).toBe(1);
    expect(
      metricValue(after, "credits_refunded_total", { operation: "chat" }) -
        metricValue(before, "credits_refunded_total", { operation: "chat" }),
    ).toBe(15);
  });

  it("a duplicate webhook: one processed, then one duplicate; a bad signature is counted as such", async () => {
    const { user } = await signIn();
    const event = orderEvent({ id: `metrics-order-${Date.now()}`, userId: user.id, variantId: "local-bonus-basic-500" });
    const before = await metricsText();
    await deliver(event);
    const middle = await metricsText();
    await deliver(event);
    await deliver(event, { signature: "0".repeat(64) });
    const after = await metricsText();
    const dup = { source: "payment", type: "order_created", outcome: "duplicate" };
    const bad = { source: "payment", type: "unknown", outcome: "bad_signature" };
    expect(metricValue(middle, "webhook_deliveries_total", dup) - metricValue(before, "webhook_deliveries_total", dup)).toBe(0);
    expect(metricValue(after, "webhook_deliveries_total", dup) - metricValue(middle, "webhook_deliveries_total", dup)).toBe(1);
    expect(metricValue(after, "webhook_deliveries_total", bad) - metricValue(middle, "webhook_deliveries_total", bad)).toBe(1);
  });

  it("a rate-limited request: one rejection in its category", async () => {
    const { user, cookie } = await signIn();
    const body = { to: user.email, subject: "s", text: "t" };
    for (let i = 0; i < 5; i++)
      expect((await call(sendEmail, { cookie, body, headers: { "x-forwarded-for": "198.51.100.40" } })).status).toBe(200);
    const before = await metricsText();
    expect((await call(sendEmail, { cookie, body, headers: { "x-forwarded-for": "198.51.100.40" } })).status).toBe(429);
    const after = await metricsText();
    expect(
      metricValue(after, "rate_limit_rejections_total", { category: "email" }) -
        metricValue(before, "rate_limit_rejections_total", { category: "email" }),
    ).toBe(1);
  });

  it("keeps label cardinality flat: 1,000 distinct ids add no series", async () => {
    const { cookie } = await signIn();
    await call(file, { path: "/api/files/warm-up", cookie, params: { id: "warm-up" } });
    const before = await metricsText();
    for (let i = 0; i < 1000; i++) await call(file, { path: `/api/files/id-${i}`, cookie, params: { id: `id-${i}` } });
    const after = await metricsText();
    expect(seriesCount(after, "http_requests_total")).toBe(seriesCount(before, "http_requests_total"));
    expect(after).not.toContain("id-999");
    const notFound = { route: "/api/files/{id}", method: "GET", status: "404" };
    expect(metricValue(after, "http_requests_total", notFound) - metricValue(before, "http_requests_total", notFound)).toBe(1000);
  });

  it("is guarded: bearer METRICS_TOKEN when set (401 otherwise), 404 in production without one", async () => {
    const restoreToken = setEnv({ METRICS_TOKEN: "metrics-secret-token" });
    try {
      expect((await call(scrape, { path: "/api/metrics" })).status).toBe(401);
      expect((await call(scrape, { path: "/api/metrics", headers: { authorization: "Bearer wrong" } })).status).toBe(401);
      expect((await call(scrape, { path: "/api/metrics", headers: { authorization: "Bearer metrics-secret-token" } })).status).toBe(200);
    } finally {
      restoreToken();
    }
    const restoreProd = setEnv({ APP_ENV: "production", CRON_SECRET: "c" });
    try {
      expect((await call(scrape, { path: "/api/metrics" })).status).toBe(404);
    } finally {
      restoreProd();
    }
  });
});
