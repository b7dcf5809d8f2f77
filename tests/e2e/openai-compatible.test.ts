import { readFileSync } from "node:fs";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { wav } from "@/tests/unit/ai/audio-fixtures";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * The OpenAI-compatible API as its users meet it: clients nobody here wrote (the official `openai`
 * SDK, and the Vercel AI SDK's openai-compatible provider) pointed at the production server with a
 * key created through the API, the OpenAI wire stub as the provider. Every call's charge is checked
 * in the user's ledger, and the key appears nowhere in the server's logs.
 */
let server: RunningServer;
let stub: OpenAiStub;
let owner: Client;
let secret = "";
const charged: number[] = [];

beforeAll(async () => {
  stub = await startOpenAiStub();
  server = await startServer(
    { OPENAI_API_KEY: "sk-upstream-e2e", OPENAI_BASE_URL: stub.url, LOG_LEVEL: "info" },
    { dataDirPrefix: "svc-v1-" },
  );
  owner = new Client(server.baseUrl);
  await owner.signIn("sdk-user@example.com");
  const created = await owner.json<{ secret: string }>("/api/keys", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "sdk tests" }),
  });
  expect(created.status).toBe(200);
  secret = created.body.secret;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await stub?.close();
  if (server) removeDir(server.dataDir);
});

const openai = () => new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: secret, maxRetries: 2 });

async function createKey(body: Record<string, unknown>): Promise<string> {
  const res = await owner.json<{ secret: string }>("/api/keys", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "limited", ...body }),
  });
  expect(res.status).toBe(200);
  return res.body.secret;
}

describe("the official openai SDK against /v1", () => {
  it("chat completion, charged 15 credits", async () => {
    const completion = await openai().chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Say hi" }],
      max_tokens: 100,
    });
    expect(completion.choices[0].message.content).toBe("stub reply to: Say hi");
    expect(completion.choices[0].finish_reason).toBe("stop");
    const usage = completion.usage as OpenAI.CompletionUsage & { credits_charged: number };
    expect(usage.credits_charged).toBe(15);
    charged.push(usage.credits_charged);
  });

  it("streaming with include_usage: the text, then the usage with the charge (20 credits)", async () => {
    const stream = await openai().chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Stream it" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: (OpenAI.CompletionUsage & { credits_charged?: number }) | null | undefined = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("stub reply to: Stream it");
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.credits_charged).toBe(20);
    charged.push(20);
  });

  it("embeddings (the SDK asks for base64 and decodes it)", async () => {
    const res = await openai().embeddings.create({ model: "text-embedding-3-small", input: ["alpha", "beta"] });
    expect(res.data).toHaveLength(2);
    expect(res.data[0].embedding.every((x) => typeof x === "number")).toBe(true);
    expect(Math.hypot(...res.data[0].embedding)).toBeCloseTo(1, 4);
    charged.push(1);
  });

  it("image generation as b64_json (80 credits)", async () => {
    const res = await openai().images.generate({ model: "gpt-image-1", prompt: "a lighthouse", size: "1024x1024", quality: "low" });
    expect(res.data?.[0].b64_json?.length).toBeGreaterThan(10);
    charged.push(80);
  });

  it("transcription of a file (20 credits)", async () => {
    const res = await openai().audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(wav(1.5), "memo.wav", { type: "audio/wav" }),
    });
    expect(res.text).toBe("stub transcription of the audio");
    charged.push(20);
  });

  it("models.list: what the key may use", async () => {
    const ids: string[] = [];
    for await (const model of openai().models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(["gpt-4o-mini", "text-embedding-3-small", "gpt-image-1", "whisper-1"]));
  });

  it("its typed errors: 401 AuthenticationError, 403 PermissionDeniedError, 429 RateLimitError insufficient_quota (not retried)", async () => {
    const bad = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: `sk-${"Z".repeat(43)}`, maxRetries: 0 });
    const unauthorized = await bad.models.list().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unauthorized as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("invalid_api_key");

    const narrow = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: await createKey({ models: ["gpt-4o-mini"] }), maxRetries: 0 });
    const forbidden = await narrow.chat.completions
      .create({ model: "gpt-4.1-mini", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((forbidden as InstanceType<typeof OpenAI.PermissionDeniedError>).code).toBe("model_not_allowed");

    const budgeted = new OpenAI({
      baseURL: `${server.baseUrl}/v1`,
      apiKey: await createKey({ budget: { credits: 10, period: "day" } }),
      maxRetries: 2,
    });
    const before = stub.count("chat");
    const started = Date.now();
    const quota = await budgeted.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(quota).toBeInstanceOf(OpenAI.RateLimitError);
    expect((quota as InstanceType<typeof OpenAI.RateLimitError>).code).toBe("budget_exceeded");
    expect((quota as InstanceType<typeof OpenAI.RateLimitError>).type).toBe("insufficient_quota");
    // x-should-retry: false: the SDK gave up at once (its retries wait at least half a second).
    expect(Date.now() - started).toBeLessThan(450);
    expect(stub.count("chat")).toBe(before);

    const invalid = await openai()
      .chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }], n: 3 })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect((invalid as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("n");
  });
});

describe("the Vercel AI SDK (openai-compatible provider) against /v1", () => {
  const provider = () =>
    createOpenAICompatible({ name: "subscription-backend", baseURL: `${server.baseUrl}/v1`, apiKey: secret, includeUsage: true });

  it("generateText", async () => {
    const result = await generateText({ model: provider()("gpt-4o-mini"), prompt: "Hello from the AI SDK" });
    expect(result.text).toBe("stub reply to: Hello from the AI SDK");
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    charged.push(15);
  });

  it("streamText", async () => {
    const result = streamText({ model: provider()("gpt-4o-mini"), prompt: "Stream from the AI SDK" });
    let text = "";
    for await (const part of result.textStream) text += part;
    expect(text).toBe("stub reply to: Stream from the AI SDK");
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    charged.push(20);
  });
});

describe("the ledger and the logs", () => {
  it("every call above is one charge in the user's ledger, on the key; the key is nowhere in the server's logs", async () => {
    const expected = charged.reduce((a, b) => a + b, 0);
    const history = await owner.json<{ transactions: Array<{ amount: number; type: string; metadata: Record<string, unknown> }> }>(
      "/api/credits/history?limit=100",
    );
    const keyed = history.body.transactions.filter((t) => (t.type === "usage" || t.type === "refund") && t.metadata.apiKeyId);
    expect(-keyed.reduce((sum, t) => sum + t.amount, 0)).toBe(expected);
    const keys = await owner.json<{ keys: Array<{ name: string; totalSpent: number; lastUsedAt: string | null }> }>("/api/keys");
    const sdkKey = keys.body.keys.find((k) => k.name === "sdk tests");
    expect(sdkKey?.totalSpent).toBe(expected);
    expect(sdkKey?.lastUsedAt).not.toBeNull();

    // A key sent in a URL is refused, and does not reach the logs either.
    expect((await fetch(`${server.baseUrl}/v1/models?key=${secret}`)).status).toBe(401);
    const logs = readFileSync(server.logFile, "utf8");
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(secret.slice(3));
  });
});
