import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/ai/generate-content/route";
import { TEMPLATES } from "@/lib/ai/content/content-templates";

import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { balanceOf, readSse, setBalance, stubProviderForFile } from "./ai-test-kit";

const stub = await stubProviderForFile();

const email = { template: "email", fields: { recipient: "Dana", purpose: "Thank her for the meeting" } };
const generate = (cookie: string | undefined, body: unknown) => send(POST, { path: "/api/ai/generate-content", cookie, body });

describe("POST /api/ai/generate-content", () => {
  it("answers 401 without a session and 404 when content generation is disabled", async () => {
    expect((await call(POST, { path: "/api/ai/generate-content", body: email })).status).toBe(401);
    const { cookie } = await signIn();
    const undo = setEnv({ PUBLIC_AI_CONTENT_GEN_ENABLED: "false" });
    try {
      expect((await call(POST, { path: "/api/ai/generate-content", body: email, cookie })).status).toBe(404);
    } finally {
      undo();
    }
  });

  it("streams content chunks, then the meta event, then [DONE], charging 25", async () => {
    // Paced like a model: each word its own read, so each its own event (a burst arrives as one).
    stub.chunkDelayMs = 5;
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "reply", text: "Dear Dana, thank you for the meeting today. Best regards" });
    const res = await generate(cookie, { ...email, tone: "friendly", language: "de", length: "short" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = await readSse(res);
    const texts = events.filter((e) => e.json?.type === "text");
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.map((e) => e.json.text).join("")).toBe("Dear Dana, thank you for the meeting today. Best regards");
    expect(events.at(-2)).toMatchObject({ event: "meta", json: { creditsUsed: 25, creditsRemaining: 175 } });
    expect(events.at(-1)?.data).toBe("[DONE]");
    expect(await balanceOf(user.id)).toBe(175);
    const [system, prompt] = stub.requests[0].body.messages;
    expect(system.role).toBe("system");
    expect(system.content).toMatch(/German/);
    expect(system.content).toMatch(/friendly tone/);
    expect(system.content).toMatch(/50 to 100 words/);
    expect(prompt.content).toMatch(/Write an email/);
    expect(prompt.content).toContain("- recipient: Dana");
    expect(prompt.content).toContain("- purpose: Thank her for the meeting");
  });

  it("defaults to professional, English, medium", async () => {
    const { cookie } = await signIn();
    await readSse(await generate(cookie, email));
    const system = stub.requests[0].body.messages[0].content;
    expect(system).toMatch(/English with a professional tone/);
    expect(system).toMatch(/150 to 300 words/);
  });

  it.each(Object.entries(TEMPLATES))("template %s answers 400 naming its missing required fields", async (template, t) => {
    const { user, cookie } = await signIn();
    const res = await call(POST, { path: "/api/ai/generate-content", cookie, body: { template, fields: {} } });
    expect(res.status).toBe(400);
    for (const name of t.required) expect(res.body.error).toContain(`"${name}"`);
    expect(res.body.error).toContain(`template "${template}"`);
    expect(await balanceOf(user.id)).toBe(200);
    const ok = await generate(cookie, { template, fields: Object.fromEntries(t.required.map((n) => [n, `value of ${n}`])) });
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it.each([
    [{ fields: {} }, /template/],
    [{ template: "poem", fields: {} }, /template/],
    [{ template: "email" }, /fields/],
    [{ template: "email", fields: "Dana" }, /fields/],
    [{ template: "email", fields: { recipient: 5, purpose: "x" } }, /fields\.recipient/],
    [{ template: "email", fields: { recipient: "  ", purpose: "x" } }, /missing "recipient"/],
    [{ template: "email", fields: { recipient: "a", purpose: "b", colour: "red" } }, /unknown "colour"/],
    [{ ...email, tone: "angry" }, /tone/],
    [{ ...email, language: "it" }, /language/],
    [{ ...email, length: "epic" }, /length/],
  ])("answers 400 for invalid input %# without charging", async (body, message) => {
    const { user, cookie } = await signIn();
    const res = await call(POST, { path: "/api/ai/generate-content", cookie, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await balanceOf(user.id)).toBe(200);
    expect(stub.count()).toBe(0);
  });

  it("answers 402 before any upstream call", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 24);
    const res = await call(POST, { path: "/api/ai/generate-content", cookie, body: email });
    expect(res.status).toBe(402);
    expect(stub.count()).toBe(0);
  });

  it("answers 429 with Retry-After and refunds when the provider throttles", async () => {
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "error", status: 429, code: "rate_limit_exceeded", retryAfter: "3" });
    const res = await call(POST, { path: "/api/ai/generate-content", cookie, body: email });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(res.body.error).toBe("AI provider is rate limiting requests; try again in 3 seconds (chat completion)");
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("refunds when the provider fails before the stream; charges what the provider used when it fails during, or times out after it had the request", async () => {
    const { user, cookie } = await signIn();
    stub.next("stream", { kind: "error", status: 500 });
    const before = await call(POST, { path: "/api/ai/generate-content", cookie, body: email });
    expect(before.status).toBe(503);
    expect(before.body.error).toBe("AI provider failed with status 500 (chat completion)");
    stub.next("stream", { kind: "break", afterChunks: 1 });
    const during = await readSse(await generate(cookie, email));
    expect(during.at(-1)?.json?.type).toBe("error");
    const undo = setEnv({ AI_TIMEOUT_MS: "300" });
    try {
      stub.next("stream", { kind: "hang" });
      const slow = await call(POST, { path: "/api/ai/generate-content", cookie, body: email });
      expect(slow.status).toBe(503);
      expect(slow.body.error).toMatch(/did not answer the chat completion within 300 ms/);
    } finally {
      undo();
    }
    // The break: one credit (what it produced, at most the flat price); the timeout: one (its prompt).
    expect(await balanceOf(user.id)).toBe(198);
  });

  it("streams a labelled offline text without OPENAI_API_KEY", async () => {
    const { cookie } = await signIn();
    const undo = setEnv({ OPENAI_API_KEY: undefined });
    try {
      const events = await readSse(await generate(cookie, email));
      const text = events
        .filter((e) => e.json?.type === "text")
        .map((e) => e.json.text)
        .join("");
      expect(text).toMatch(/^\[offline\] /);
      expect(events.at(-2)?.json).toEqual({ creditsUsed: 25, creditsRemaining: 175 });
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
  });
});
