import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAbortError } from "@/lib/ai/providers/abort";
import { aiProvider } from "@/lib/ai/providers/provider";
import { routing } from "@/lib/ai/providers/routes";
import { setEnv } from "@/tests/helpers/env";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { wav } from "./audio-fixtures";

let stub: OpenAiStub;
let restore: () => void;

beforeAll(async () => {
  stub = await startOpenAiStub({ embeddingDim: 16 });
  restore = setEnv({
    OPENAI_API_KEY: "sk-unit",
    OPENAI_BASE_URL: stub.url,
    AI_EMBEDDING_MODEL: "embed-small",
    AI_MODELS: JSON.stringify({
      "embed-small": { kind: "embedding", vendor: "openai", contextWindow: 8191, perMillionTokens: { input: 0.02 } },
    }),
  });
});
afterEach(() => stub.reset());
afterAll(async () => {
  restore();
  await stub.close();
});

const long = { kind: "reply" as const, text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ") };
const req = { messages: [{ role: "user" as const, content: "hi" }] };

describe("OpenAI-compatible provider against the stub", () => {
  it("routes every OpenAI model to the openai provider when its key is set", () => {
    expect(aiProvider()).toMatchObject({ name: "router", offline: false });
    expect([...routing().providers.keys()]).toEqual(["openai"]);
    expect(routing().routes.get("gpt-4o")).toEqual([{ provider: "openai", model: "gpt-4o", upstreamModel: "gpt-4o" }]);
    expect(routing().routes.has("claude-sonnet-4-5")).toBe(false);
  });

  it("embeds texts in input order with the configured model", async () => {
    const result = await aiProvider().embed(["alpha", "beta"]);
    expect(result?.model).toBe("embed-small");
    expect(result?.vectors).toHaveLength(2);
    expect(result?.vectors[0]).toHaveLength(16);
    expect(result?.vectors[0]).not.toEqual(result?.vectors[1]);
    expect(stub.requests[0].body).toEqual({ model: "embed-small", input: ["alpha", "beta"], encoding_format: "float" });
    expect(await aiProvider().embed([])).toMatchObject({ model: "embed-small", vectors: [] });
    expect(stub.count("embeddings")).toBe(1);
  });

  it("maps the provider's throttling to rate_limited with its Retry-After, and an exhausted quota to upstream_failed", async () => {
    stub.next("embeddings", { kind: "error", status: 429, code: "rate_limit_exceeded", retryAfter: "7" });
    await expect(aiProvider().embed(["x"])).rejects.toMatchObject({
      code: "rate_limited",
      message: "AI provider is rate limiting requests; try again in 7 seconds (embedding)",
      headers: { "retry-after": "7" },
    });
    stub.next("embeddings", { kind: "error", status: 429 });
    await expect(aiProvider().embed(["x"])).rejects.toMatchObject({ code: "rate_limited", headers: { "retry-after": "30" } });
    stub.next("embeddings", { kind: "error", status: 429, code: "insufficient_quota", type: "insufficient_quota" });
    await expect(aiProvider().embed(["x"])).rejects.toMatchObject({
      code: "upstream_failed",
      message: "AI provider is out of quota (check the provider account's billing) (embedding)",
    });
    // A 5xx leaves the only route unable to answer: the router's "unavailable" (503), with the cause's words.
    stub.next("embeddings", { kind: "error", status: 503 });
    await expect(aiProvider().embed(["x"])).rejects.toMatchObject({
      code: "unavailable",
      message: "AI provider failed with status 503 (embedding)",
    });
  });

  it("chat: sends the SDK's request on a kept-alive connection and maps the same failures as the SDK path", async () => {
    const answer = await aiProvider().chat({ ...req, model: "gpt-4o-mini", temperature: 0.5, maxTokens: 20 });
    expect(answer).toMatchObject({ text: "stub reply to: hi", model: "gpt-4o-mini" });
    expect(stub.requests[0]).toMatchObject({
      path: "/v1/chat/completions",
      // Streamed with the usage chunk even for one JSON answer: a call cut short is billed for what was produced.
      body: {
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0.5,
        max_tokens: 20,
      },
    });
    expect(stub.requests[0].headers.authorization).toBe("Bearer sk-unit");
    stub.next("chat", { kind: "error", status: 429, code: "rate_limit_exceeded", retryAfter: "3" });
    await expect(aiProvider().chat(req)).rejects.toMatchObject({ code: "rate_limited", headers: { "retry-after": "3" } });
    stub.next("chat", { kind: "error", status: 401 });
    await expect(aiProvider().chat(req)).rejects.toMatchObject({
      code: "upstream_failed",
      message: "AI provider rejected the configured API key (chat completion)",
    });
    stub.next("chat", { kind: "error", status: 400, code: "content_policy_violation" });
    await expect(aiProvider().chat(req)).rejects.toMatchObject({ code: "content_policy" });
  });

  it("chat: a provider that cannot be reached is a clear 503 (unavailable), for answers and streams", async () => {
    const closed = await import("node:net").then(
      ({ createServer }) =>
        new Promise<number>((resolve) => {
          const server = createServer();
          server.listen(0, "127.0.0.1", () => {
            const port = (server.address() as { port: number }).port;
            server.close(() => resolve(port));
          });
        }),
    );
    const restoreUrl = setEnv({ OPENAI_BASE_URL: `http://127.0.0.1:${closed}/v1` });
    try {
      await expect(aiProvider().chat(req)).rejects.toMatchObject({
        code: "unavailable",
        message: "AI provider could not be reached (chat completion)",
      });
      const drain = async () => {
        for await (const part of aiProvider().streamChat(req)) void part;
      };
      await expect(drain()).rejects.toMatchObject({ code: "unavailable", message: "AI provider could not be reached (chat completion)" });
    } finally {
      restoreUrl();
    }
  });

  it("transcribes with verbose_json and converts the language name", async () => {
    stub.transcription = { text: "bonjour", language: "french", duration: 4.2 };
    const t = await aiProvider().transcribe({ audio: wav(1), filename: "a.wav", mimeType: "audio/wav" });
    expect(t).toEqual({
      text: "bonjour",
      language: "fr",
      duration: 4.2,
      model: "whisper-1",
      route: { provider: "openai", model: "whisper-1" },
      spent: [],
    });
  });

  it("aborts the upstream stream when the caller's signal aborts", async () => {
    stub.chunkDelayMs = 20;
    stub.next("stream", long);
    const controller = new AbortController();
    const seen: string[] = [];
    let failure: unknown;
    try {
      for await (const part of aiProvider().streamChat({ ...req, signal: controller.signal })) {
        if (part.type === "text") seen.push(part.text);
        if (seen.length === 2) controller.abort();
      }
    } catch (error) {
      failure = error;
    }
    expect(isAbortError(failure)).toBe(true);
    await stub.waitForClientClose(1);
    expect(stub.streams.completed).toBe(0);
  });

  it("closes the upstream stream when the consumer stops early", async () => {
    stub.chunkDelayMs = 20;
    stub.next("stream", long);
    for await (const part of aiProvider().streamChat(req)) {
      if (part.type === "text") break;
    }
    await stub.waitForClientClose(1);
  });

  it("relays usage from the include_usage chunk", async () => {
    const parts = [];
    for await (const part of aiProvider().streamChat({ ...req, model: "gpt-4o" })) parts.push(part);
    expect(parts.at(-1)).toEqual({ type: "usage", model: "gpt-4o", promptTokens: expect.any(Number), completionTokens: 4 });
  });
});
