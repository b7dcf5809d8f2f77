import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { aiProvider, type StreamPart } from "@/lib/ai/providers/provider";
import { setEnv } from "@/tests/helpers/env";
import { startAnthropicStub, type AnthropicStub } from "@/tests/helpers/anthropic-stub";
import { startGeminiStub, type GeminiStub } from "@/tests/helpers/gemini-stub";

/**
 * The Anthropic and Gemini adapters (their vendors' SDKs) against local peers speaking each vendor's
 * wire format: chat, streaming, images in messages, usage from the vendor's own fields, error mapping,
 * and a clear 400 for what the vendor does not offer.
 */
let anthropic: AnthropicStub;
let gemini: GeminiStub;
let restore: () => void;
const PNG_1X1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";

beforeAll(async () => {
  anthropic = await startAnthropicStub();
  gemini = await startGeminiStub();
  restore = setEnv({
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: anthropic.url,
    GEMINI_API_KEY: "gk-test",
    GEMINI_BASE_URL: gemini.url,
    AI_EMBEDDING_MODEL: "gemini-embedding-001",
  });
});
afterEach(() => {
  anthropic.reset();
  gemini.reset();
});
afterAll(async () => {
  restore();
  await anthropic.close();
  await gemini.close();
});

async function collect(parts: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

const hello = [
  { role: "system" as const, content: "Be brief." },
  { role: "user" as const, content: "Hello" },
];

describe("Anthropic adapter (Messages API)", () => {
  it("answers a chat with the vendor's usage (cache reads counted in the prompt) and the route that answered", async () => {
    anthropic.usage = { input: 120, output: 30, cached: 20 };
    const r = await aiProvider().chat({ model: "claude-haiku-4-5", messages: hello, maxTokens: 100, temperature: 0.3 });
    expect(r).toMatchObject({
      text: "stub reply to: Hello",
      model: "claude-haiku-4-5",
      usage: { promptTokens: 140, completionTokens: 30, cachedPromptTokens: 20 },
      route: { provider: "anthropic", model: "claude-haiku-4-5" },
    });
    const sent = anthropic.requests[0];
    // Streamed even for one answer: a call cut short is billed for what was produced.
    expect(sent.body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 100,
      system: "Be brief.",
      temperature: 0.3,
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    });
    expect(sent.headers["anthropic-version"]).toBeTruthy();
  });

  it("streams text deltas, then the usage of message_start and message_delta", async () => {
    anthropic.usage = { input: 50, output: 7 };
    const parts = await collect(
      aiProvider().streamChat({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi there" }], maxTokens: 64 }),
    );
    expect(parts[0]).toEqual({ type: "route", provider: "anthropic", model: "claude-sonnet-4-5" });
    expect(
      parts
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join(""),
    ).toBe("stub reply to: Hi there");
    expect(parts.at(-1)).toEqual({ type: "usage", model: "claude-sonnet-4-5", promptTokens: 50, completionTokens: 7 });
  });

  it("sends images in messages as base64 image blocks", async () => {
    await aiProvider().chat({
      model: "claude-haiku-4-5",
      maxTokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is it?" },
            { type: "image", image: PNG_1X1 },
          ],
        },
      ],
    });
    const content = (anthropic.requests[0].body as { messages: { content: unknown[] }[] }).messages[0].content;
    expect(content[1]).toEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1X1.split(",")[1] } });
  });

  it("maps 429 (with Retry-After), 529 overloaded, 5xx, 401 and a refusal", async () => {
    const call = () => aiProvider().chat({ model: "claude-haiku-4-5", messages: hello, maxTokens: 10 });
    anthropic.next("messages", { kind: "error", status: 429, retryAfter: "4" });
    await expect(call()).rejects.toMatchObject({ code: "rate_limited", headers: { "retry-after": "4" } });
    anthropic.next("messages", { kind: "error", status: 529 });
    await expect(call()).rejects.toMatchObject({
      code: "unavailable",
      message: "AI provider is overloaded (status 529) (chat completion)",
    });
    anthropic.next("messages", { kind: "error", status: 500 });
    await expect(call()).rejects.toMatchObject({ code: "unavailable", message: "AI provider failed with status 500 (chat completion)" });
    anthropic.next("messages", { kind: "error", status: 401 });
    await expect(call()).rejects.toMatchObject({
      code: "upstream_failed",
      message: "AI provider rejected the configured API key (chat completion)",
    });
    anthropic.next("messages", { kind: "refuse" });
    await expect(call()).rejects.toMatchObject({ code: "content_policy" });
  });

  it("our deadline is a timeout (503 unavailable, received by the provider), never the client's abort", async () => {
    anthropic.next("messages", { kind: "hang" });
    const call = aiProvider().chat({ model: "claude-haiku-4-5", messages: hello, maxTokens: 10, timeoutMs: 300 });
    await expect(call).rejects.toMatchObject({
      code: "unavailable",
      message: "AI provider did not answer the chat completion within 300 ms",
      details: { reach: "received" },
    });
  });

  it("answers a 400 for what Anthropic does not offer", async () => {
    await expect(
      aiProvider().generateImage({
        prompt: "x",
        model: "claude-haiku-4-5",
        size: "1024x1024",
        quality: "low",
        outputFormat: "png",
        background: "opaque",
      }),
    ).rejects.toMatchObject({
      code: "validation_failed",
    });
  });
});

describe("Gemini adapter (Gemini API)", () => {
  it("answers a chat with usageMetadata (thinking counted as output) and the system instruction", async () => {
    gemini.usage = { input: 80, output: 12, cached: 40 };
    const r = await aiProvider().chat({ model: "gemini-2.5-flash", messages: hello, maxTokens: 200 });
    expect(r).toMatchObject({
      text: "stub reply to: Hello",
      usage: { promptTokens: 80, completionTokens: 12, cachedPromptTokens: 40 },
      route: { provider: "gemini", model: "gemini-2.5-flash" },
    });
    expect(gemini.requests[0].path).toMatch(/\/models\/gemini-2\.5-flash:streamGenerateContent\?alt=sse$/);
    expect(gemini.requests[0].body).toMatchObject({
      contents: [{ role: "user", parts: [{ text: "Hello" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      generationConfig: { maxOutputTokens: 200 },
    });
  });

  it("streams the SSE chunks and passes on each chunk's running usage (thinking included), the last one the call's", async () => {
    gemini.usage = { input: 30, output: 6 };
    const parts = await collect(aiProvider().streamChat({ model: "gemini-2.5-pro", messages: [{ role: "user", content: "Hi there" }] }));
    expect(
      parts
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join(""),
    ).toBe("stub reply to: Hi there");
    const usages = parts.filter((p) => p.type === "usage");
    expect(usages.length).toBeGreaterThan(1);
    expect(usages.at(-1)).toMatchObject({ type: "usage", promptTokens: 30, completionTokens: 6 });
    expect(gemini.requests[0].path).toMatch(/:streamGenerateContent\?alt=sse$/);
  });

  it("sends images as inline data, embeds texts, maps RetryInfo and a blocked prompt", async () => {
    await aiProvider().chat({ model: "gemini-2.5-flash", messages: [{ role: "user", content: [{ type: "image", image: PNG_1X1 }] }] });
    expect((gemini.requests[0].body as { contents: { parts: unknown[] }[] }).contents[0].parts[0]).toEqual({
      inlineData: { mimeType: "image/png", data: PNG_1X1.split(",")[1] },
    });
    const e = await aiProvider().embed(["a", "b"], undefined, "gemini-embedding-001");
    expect(e?.vectors).toHaveLength(2);
    gemini.next("generate", { kind: "error", status: 429, retryAfter: "9" });
    await expect(aiProvider().chat({ model: "gemini-2.5-flash", messages: hello })).rejects.toMatchObject({
      code: "rate_limited",
      headers: { "retry-after": "9" },
    });
    gemini.next("generate", { kind: "refuse" });
    await expect(aiProvider().chat({ model: "gemini-2.5-flash", messages: hello })).rejects.toMatchObject({ code: "content_policy" });
  });
});
