import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as usageGet } from "@/app/api/admin/usage/route";
import { POST as chatPost } from "@/app/api/ai/chat/route";
import { GET as historyGet } from "@/app/api/credits/history/route";
import { closeDb } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import type { OpenAiStub } from "@/tests/helpers/openai-stub";
import { setBalance, useStubProvider } from "../ai/ai-test-kit";

/**
 * The record of AI usage: the operator's usage report (per model and user, provider cost, the credits'
 * value, margin) and the user's CSV export of their ledger with the usage columns.
 */
let stub: OpenAiStub;
let restoreStub: () => void;
let restoreEnv: () => void;
let op: { cookie: string };
beforeAll(async () => {
  ({ stub, restore: restoreStub } = await useStubProvider());
  restoreEnv = setEnv({ ADMIN_EMAILS: "usage-op@example.com", AI_PRICING_MODE: "metered", CREDIT_VALUE_USD: "0.0001", AI_MARKUP: "2" });
  op = await signIn("usage-op@example.com");
});
afterEach(() => stub.reset());
afterAll(async () => {
  restoreEnv();
  restoreStub();
  await stub.close();
  await closeDb();
});

const chat = (cookie: string, model: string) =>
  call(chatPost, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "Hi" }], model, maxTokens: 500 } });
const report = (query = "") => call(usageGet, { path: `/api/admin/usage${query}`, cookie: op.cookie });

describe("GET /api/admin/usage", () => {
  it("sums calls, tokens, credits, their value, provider cost and margin per model and per user", async () => {
    const a = await signIn("usage-a@example.com");
    const b = await signIn("usage-b@example.com");
    await setBalance(a.user.id, 100_000);
    await setBalance(b.user.id, 100_000);
    stub.usage = { promptTokens: 1000, completionTokens: 500 };
    // gpt-4o: 1000 x 2.5 + 500 x 10 = 7,500 micros -> 7,500 x 2 / 100 = 150 credits ($0.015 of credits).
    await chat(a.cookie, "gpt-4o");
    await chat(a.cookie, "gpt-4o");
    // gpt-4o-mini: 1000 x 0.15 + 500 x 0.6 = 450 micros -> 9 credits.
    await chat(b.cookie, "gpt-4o-mini");

    const res = await report();
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body).toMatchObject({ to: today, userId: null, creditValueUsd: 0.0001 });
    const g4o = res.body.byModel.find((m: { model: string }) => m.model === "gpt-4o");
    expect(g4o).toMatchObject({ calls: 2, credits: 300, promptTokens: 2000, completionTokens: 1000, costUsd: 0.015 });
    expect(g4o.soldUsd).toBeCloseTo(0.03, 10);
    expect(g4o.marginUsd).toBeCloseTo(0.015, 10);
    expect(res.body.byModel.find((m: { model: string }) => m.model === "gpt-4o-mini")).toMatchObject({
      calls: 1,
      credits: 9,
      costUsd: 0.00045,
    });
    expect(res.body.byUser[0]).toMatchObject({ userId: a.user.id, email: "usage-a@example.com", calls: 2, credits: 300 });
    expect(res.body.totals.calls).toBe(3);

    const one = await report(`?userId=${b.user.id}`);
    expect(one.body.byModel).toEqual([expect.objectContaining({ model: "gpt-4o-mini", calls: 1 })]);
    expect(one.body.byUser).toEqual([expect.objectContaining({ userId: b.user.id })]);
    expect((await report("?from=2000-01-01&to=2000-01-31")).body.totals.calls).toBe(0);
  });

  it("answers 400 naming a bad period and 404 for a malformed user id", async () => {
    expect((await report("?from=yesterday")).body).toEqual({
      error: "Invalid query: from must be a date like 2026-11-01",
      code: "validation_failed",
    });
    expect((await report("?from=2026-02-01&to=2026-01-01")).status).toBe(400);
    expect((await report("?from=2024-01-01&to=2026-01-01")).body.error).toMatch(/at most 366 days/);
    expect((await report("?userId=nope")).status).toBe(404);
  });
});

describe("GET /api/credits/history?format=csv", () => {
  it("exports the year's ledger with the usage columns, newest first", async () => {
    const u = await signIn("csv-user@example.com");
    await setBalance(u.user.id, 100_000);
    stub.usage = { promptTokens: 1000, completionTokens: 500 };
    await chat(u.cookie, "gpt-4o");
    const res = await call(historyGet, { path: "/api/credits/history?format=csv", cookie: u.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="credits-${new Date().getUTCFullYear()}.csv"`);
    const lines = res.text.trim().split("\r\n");
    expect(lines[0]).toBe(
      "id,createdAt,type,operation,amount,balanceAfter,model,promptTokens,cachedPromptTokens,completionTokens,images,audioSeconds,costUsd,credits,reason,apiKeyId,memberId,tags,endUser,requestMetadata",
    );
    const usage = lines.find((l) => l.includes(",usage,chat,")) as string;
    expect(usage.split(",").slice(2, 4)).toEqual(["usage", "chat"]);
    expect(usage).toContain(",gpt-4o,1000,,500,,,0.007500,150,");
    expect(lines.at(-1)).toContain(",monthly_reset,");
    expect((await call(historyGet, { path: "/api/credits/history?format=xml", cookie: u.cookie })).status).toBe(400);
  });
});
