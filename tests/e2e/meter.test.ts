import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_MODELS } from "@/lib/ai/catalog/model-catalog";
import { startBillingStub, type Bill, type BillingStub } from "@/tests/helpers/billing-vendor-stub";
import { flac, m4a, mp3, ogg, wav, webm } from "@/tests/unit/ai/audio-fixtures";
import { pngOf } from "@/tests/helpers/images";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * The meter against a hostile client (docs/API-NOTES.md "Pricing"): the production server in front of
 * vendor stubs that bill the way vendors do (tests/helpers/billing-vendor-stub.ts: output billed until
 * the connection closes, thinking billed as output, prompts by each vendor's own tokenizer, images
 * by their size, audio by its decoded length, usage omitted on request). Every call of every case,
 * in both pricing modes, must charge credits worth at least what the stub billed, whatever the client
 * sends, omits or does.
 */
const ADMIN_TOKEN = "meter-suite-admin-token-0123456789abcdef";
/** The default catalog's cheapest credit: the Enterprise package, $99.99 for 25,000. */
const CREDIT_USD = 99.99 / 25_000;
const REASONER = {
  kind: "chat",
  vendor: "openai",
  contextWindow: 200_000,
  maxOutputTokens: 4_000,
  perMillionTokens: { input: 1.1, output: 4.4 },
  tokenizer: "o200k",
  hiddenReasoning: true,
};
const PRICES = new Map<string, (typeof DEFAULT_MODELS)[number] | typeof REASONER>([
  ...DEFAULT_MODELS.map((m) => [m.id, m] as const),
  ["o4-mini", REASONER],
]);

/** What a bill costs the operator at list prices, USD. */
function billUsd(b: Bill): number {
  const m = PRICES.get(b.model);
  if (!m) throw new Error(`no list price for ${b.model}`);
  const p = m.perMillionTokens ?? { input: 0, output: 0 };
  const perMinute = "perAudioMinute" in m ? (m.perAudioMinute ?? 0) : 0;
  return (b.promptTokens * p.input + (b.outputTokens + b.thinkingTokens) * (p.output ?? 0)) / 1e6 + (b.audioSeconds / 60) * perMinute;
}

type Mode = "flat" | "metered";
const modes: Mode[] = ["flat", "metered"];
const servers = new Map<Mode, { server: RunningServer; client: Client; key: string }>();
let stub: BillingStub;

async function setUp(mode: Mode) {
  const server = await startServer(
    {
      AI_PRICING_MODE: mode,
      OPENAI_API_KEY: "sk-billing",
      OPENAI_BASE_URL: `${stub.url}/openai/v1`,
      ANTHROPIC_API_KEY: "sk-ant-billing",
      ANTHROPIC_BASE_URL: `${stub.url}/anthropic`,
      GEMINI_API_KEY: "gemini-billing",
      GEMINI_BASE_URL: `${stub.url}/gemini`,
      AI_MODELS: JSON.stringify({ "o4-mini": REASONER }),
      AI_ALLOWED_MODELS: "gpt-4o-mini,gpt-4.1,o4-mini,claude-haiku-4-5,claude-sonnet-4-5,gemini-2.5-flash",
      // The first route of the small embedding model fails over to one priced as the large model.
      AI_ROUTES: JSON.stringify({
        "text-embedding-3-small": [
          "openai",
          { provider: "openai", model: "text-embedding-3-large", upstreamModel: "text-embedding-3-large" },
        ],
      }),
      AI_TIMEOUT_MS: "1500",
      ADMIN_API_TOKEN: ADMIN_TOKEN,
      LOG_LEVEL: "error",
    },
    { dataDirPrefix: `svc-meter-${mode}-` },
  );
  const client = new Client(server.baseUrl);
  await client.signIn(`meter-${mode}@example.com`);
  const session = await client.json<{ user: { id: string } }>("/api/auth/session");
  const grant = await fetch(`${server.baseUrl}/api/admin/users/${session.body.user.id}/credits`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ amount: 200_000, bucket: "subscription", reason: "meter suite", idempotencyKey: `meter-${mode}` }),
  });
  expect(grant.status).toBe(200);
  const key = await client.json<{ secret: string }>("/api/keys", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "meter" }),
  });
  expect(key.status).toBe(200);
  servers.set(mode, { server, client, key: key.body.secret });
}

beforeAll(async () => {
  stub = await startBillingStub();
  await Promise.all(modes.map(setUp));
}, 240_000);

afterAll(async () => {
  for (const { server } of servers.values()) {
    await server.stop();
    removeDir(server.dataDir);
  }
  await stub?.close();
});

async function balance(mode: Mode): Promise<number> {
  const { body } = await servers.get(mode)!.client.json<{ remaining: number; bonusCredits: number }>("/api/ai/usage");
  return body.remaining + body.bonusCredits;
}

/**
 * Runs one call (or a few) and returns what it charged and what the stub billed, once the stub's
 * bills are final and the balance has stopped moving (a cut call settles after its response).
 */
async function metered(
  mode: Mode,
  run: () => Promise<unknown>,
): Promise<{ charged: number; bills: Bill[]; result: unknown; reserved: number | null }> {
  const before = await balance(mode);
  const from = stub.bills.length;
  const started = Date.now();
  const result = await run();
  await stub.settled();
  let last = await balance(mode);
  for (let stable = 0, i = 0; stable < 4 && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const now = await balance(mode);
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  // Metered: what the newest charge reserved before the call (its quote), from the ledger.
  let reserved: number | null = null;
  if (mode === "metered") {
    const { body } = await servers
      .get(mode)!
      .client.json<{ transactions: { type: string; createdAt: string; metadata: { reserved?: number } }[] }>(
        "/api/credits/history?limit=10",
      );
    // The charge's own usage row (a settlement's extra draw has rows of its own, without `reserved`).
    const usage = body.transactions.find((t) => t.type === "usage" && t.metadata.reserved !== undefined);
    reserved = usage && Date.parse(usage.createdAt) >= started - 1000 ? (usage.metadata.reserved ?? null) : null;
  }
  return { charged: before - last, bills: stub.bills.slice(from), result, reserved };
}

/**
 * The rule of the suite: never sold below cost. And in metered mode the reservation made before the
 * call was already an upper bound of the bill (a settlement never had to draw more than was held).
 */
function expectCovered(what: string, m: { charged: number; bills: Bill[]; reserved?: number | null }): void {
  const cost = m.bills.reduce((sum, b) => sum + billUsd(b), 0);
  expect(
    m.charged * CREDIT_USD,
    `${what}: ${m.charged} credits for $${cost.toFixed(6)} billed (${JSON.stringify(m.bills)})`,
  ).toBeGreaterThanOrEqual(cost);
  if (m.reserved !== undefined && m.reserved !== null)
    expect(m.reserved * CREDIT_USD, `${what}: reserved ${m.reserved} credits before a $${cost.toFixed(6)} bill`).toBeGreaterThanOrEqual(
      cost,
    );
}

const v1 = (mode: Mode, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${servers.get(mode)!.server.baseUrl}/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${servers.get(mode)!.key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });

/** Reads an SSE body chunk by chunk; `onText` may stop early (return false: the reader hangs up). */
async function readStream(
  res: Response,
  onText: (count: number) => boolean | void = () => true,
): Promise<{ texts: number; ended: boolean }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let texts = 0;
  for (;;) {
    const r = await reader.read();
    if (r.done) return { texts, ended: true };
    buffer += decoder.decode(r.value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (/"content":"|"type":"text"/.test(block)) {
        texts++;
        if (onText(texts) === false) {
          await reader.cancel();
          return { texts, ended: false };
        }
      }
    }
  }
}

const chat = (model: string, content: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content }],
  ...extra,
});

describe.each(modes)("the meter (%s pricing): every call costs at least what the provider billed", (mode) => {
  it("audio: a header that lies about the length never shortens the price (WAV, MP3, FLAC, Ogg, WebM, M4A)", async () => {
    const files: [string, Buffer, number][] = [
      ["lying.wav", wav(2400, 8000, 1, 8, { claims: 10 }), 2400],
      ["lying.mp3", mp3(3600, false, { lowRate: true, lie: { claims: 10 } }), 3600],
      ["lying.flac", flac(3600, 44100, { claims: 10 }), 3600],
      ["lying.ogg", ogg(3600, { claims: 10 }), 3600],
      ["lying.webm", webm(3600, 10), 3600],
      ["lying.m4a", m4a(3600, { claims: 10 }), 3600],
      // Short enough for the flat price, though its header claims 10 seconds.
      ["nine-minutes.wav", wav(540, 8000, 1, 8, { claims: 10 }), 540],
    ];
    for (const [name, bytes, seconds] of files) {
      stub.registerAudio(bytes, seconds);
      const form = new FormData();
      form.set("file", new Blob([new Uint8Array(bytes)]), name);
      form.set("model", "whisper-1");
      const m = await metered(mode, () =>
        fetch(`${servers.get(mode)!.server.baseUrl}/v1/audio/transcriptions`, {
          method: "POST",
          headers: { authorization: `Bearer ${servers.get(mode)!.key}` },
          body: form,
        }),
      );
      const status = (m.result as Response).status;
      if (mode === "flat" && seconds > 600) {
        // More than 20 credits pay for: refused before any provider call.
        expect(status, name).toBe(400);
        expect(await (m.result as Response).json()).toMatchObject({
          error: { message: expect.stringMatching(/minutes long; at the flat price of 20 credits it may be at most/) },
        });
        expect(m.bills).toHaveLength(0);
      } else expect(status, name).toBe(200);
      expectCovered(name, m);
    }
  }, 120_000);

  it("a JSON chat cut by our deadline, and one the client hangs up on, pay for what the provider produced until then", async () => {
    stub.plan("openai", { tokens: 400, paceMs: 10 });
    const late = await metered(mode, () => v1(mode, "/chat/completions", chat("gpt-4o-mini", "Write a long story")));
    expect((late.result as Response).status).toBe(503);
    expect(late.bills[0]).toMatchObject({ cut: true });
    expect(late.bills[0].outputTokens).toBeGreaterThan(20);
    expect(late.charged).toBeGreaterThan(0);
    expectCovered("deadline", late);

    stub.plan("openai", { tokens: 400, paceMs: 5 });
    const gone = await metered(mode, async () => {
      const client = new AbortController();
      const pending = v1(mode, "/chat/completions", chat("gpt-4.1", "Write a long story"), client.signal).catch(() => null);
      await new Promise((r) => setTimeout(r, 400));
      client.abort();
      return pending;
    });
    expect(gone.bills[0]).toMatchObject({ cut: true });
    expect(gone.bills[0].outputTokens).toBeGreaterThan(10);
    expectCovered("client hang-up", gone);
  }, 60_000);

  it("a stream abandoned while the model is still thinking pays for the thinking (Gemini, and a hidden reasoner)", async () => {
    for (const [vendor, model] of [
      ["gemini", "gemini-2.5-flash"],
      ["openai", "o4-mini"],
    ] as const) {
      stub.plan(vendor, { thinking: 300, tokens: 10, paceMs: 5 });
      const cut = await metered(mode, async () => {
        const client = new AbortController();
        const pending = v1(mode, "/chat/completions", chat(model, "Think hard", { stream: true }), client.signal).catch(() => null);
        await new Promise((r) => setTimeout(r, 500));
        client.abort();
        return pending;
      });
      expect(cut.bills[0].thinkingTokens, model).toBeGreaterThan(30);
      expect(cut.bills[0].outputTokens, model).toBe(0);
      expectCovered(`${model} thinking`, cut);
    }
  }, 60_000);

  it("a stream read 18 chunks of 20, then hung up on: the flat price in flat mode, what was produced in metered", async () => {
    stub.plan("openai", { tokens: 20, paceMs: 20 });
    const cut = await metered(mode, async () => {
      const res = await v1(
        mode,
        "/chat/completions",
        chat("gpt-4o-mini", "Twenty words", { stream: true, stream_options: { include_usage: true } }),
      );
      return readStream(res, (n) => n < 18);
    });
    if (mode === "flat") expect(cut.charged).toBe(20);
    expectCovered("18 of 20", cut);
    // A dear model and a long answer: hanging up after 90% of what was read still pays for all the provider produced.
    stub.plan("openai", { tokens: 6000 });
    const long = await metered(mode, async () => {
      const res = await v1(mode, "/chat/completions", chat("gpt-4.1", "Six thousand words", { stream: true, max_tokens: 6000 }));
      return readStream(res, (n) => n < 5400);
    });
    expectCovered("5,400 of 6,000 on gpt-4.1", long);
  }, 60_000);

  it("a client that stops reading neither stalls the provider nor escapes the charge: settled when the upstream answer ends", async () => {
    // 16,000 chunks: far more than the sockets between us hold, so a gateway that waits for its client stalls.
    stub.plan("openai", { tokens: 16_000 });
    const { client, server } = servers.get(mode)!;
    const slow = await metered(mode, async () => {
      const res = await v1(mode, "/chat/completions", chat("gpt-4o-mini", "Many words", { stream: true }));
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      // Not reading: the provider still answers to its end, and the charge is settled meanwhile.
      await stub.settled(10_000);
      expect(stub.bills.at(-1)).toMatchObject({ done: true, cut: false, outputTokens: 16_000 });
      await new Promise((r) => setTimeout(r, 300));
      const cron = await fetch(`${server.baseUrl}/api/cron/check-trials`, {
        method: "POST",
        headers: { authorization: "Bearer e2e-cron-secret" },
      });
      expect(cron.status).toBe(200);
      const history = await client.json<{ transactions: { type: string; metadata: Record<string, unknown> }[] }>(
        "/api/credits/history?limit=5",
      );
      expect(history.body.transactions.find((t) => t.type === "usage")?.metadata).toMatchObject({ credits: expect.any(Number) });
      await reader.cancel();
      return null;
    });
    expectCovered("slow reader", slow);
  }, 30_000);

  it("a Gemini stream cut after its first text pays for the thinking its running usage reported", async () => {
    stub.plan("gemini", { thinking: 6000, thinkPaceMs: 0, tokens: 200, paceMs: 10 });
    const cut = await metered(mode, async () => {
      const res = await v1(mode, "/chat/completions", chat("gemini-2.5-flash", "Think, then answer", { stream: true }));
      return readStream(res, () => false);
    });
    expect(cut.bills[0].thinkingTokens).toBe(6000);
    expectCovered("gemini cut after first text", cut);
  }, 30_000);

  it("embeddings are counted with cl100k (non-Latin text), over-long inputs answer 400, and a dearer fallback route is covered", async () => {
    const thai = "สวัสดีครับ ยินดีต้อนรับ ".repeat(120);
    const ok = await metered(mode, () => v1(mode, "/embeddings", { model: "text-embedding-3-small", input: [thai, "hello"] }));
    expect((ok.result as Response).status).toBe(200);
    expectCovered("thai embeddings", ok);

    const long = await metered(mode, () => v1(mode, "/embeddings", { model: "text-embedding-3-small", input: "é".repeat(20_000) }));
    expect((long.result as Response).status).toBe(400);
    expect(await (long.result as Response).json()).toMatchObject({
      error: { param: "input", message: expect.stringMatching(/cl100k.*at most 8,191/) },
    });
    expect(long.bills).toHaveLength(0);
    expect(long.charged).toBe(0);

    stub.failEmbeddings("openai", 503);
    const fallback = await metered(mode, () => v1(mode, "/embeddings", { model: "text-embedding-3-small", input: "x ".repeat(6000) }));
    expect((fallback.result as Response).status).toBe(200);
    expect(fallback.bills.map((b) => b.model)).toEqual(["text-embedding-3-large"]);
    expectCovered("embeddings answered by the dearer route", fallback);
  }, 30_000);

  it("a provider that sends no usage is charged the prompt as quoted and the output counted, never the minimum", async () => {
    for (const stream of [false, true]) {
      stub.plan("openai", { tokens: 3000, omitUsage: true });
      const m = await metered(mode, async () => {
        const res = await v1(mode, "/chat/completions", chat("gpt-4.1", "Answer at length ".repeat(50), { stream }));
        return stream ? readStream(res) : res.json();
      });
      expectCovered(`no usage (${stream ? "stream" : "json"})`, m);
      if (mode === "metered") expect(m.charged).toBeGreaterThan(1);
    }
  }, 30_000);

  it("images in a chat are counted from their real size (a 3072 x 3072 image to Gemini is 16 tiles, never a fixed guess)", async () => {
    const { client } = servers.get(mode)!;
    stub.plan("gemini", { tokens: 10 });
    const m = await metered(mode, async () => {
      const res = await client.fetch("/api/ai/stream", {
        method: "POST",
        headers: { "content-type": "application/json", origin: servers.get(mode)!.server.baseUrl },
        // A small output cap: the image is most of what the call may cost.
        body: JSON.stringify({
          model: "gemini-2.5-flash",
          maxTokens: 10,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: "What are they?" },
                ...Array.from({ length: 4 }, () => ({ type: "image", image: pngOf(3072, 3072) })),
              ],
            },
          ],
        }),
      });
      expect(res.status).toBe(200);
      return readStream(res);
    });
    expect(m.bills[0].promptTokens).toBeGreaterThan(4 * 16 * 258);
    expectCovered("gemini image", m);
  }, 30_000);

  it("Anthropic: a cut stream is billed on the prompt Anthropic reported, and our deadline is a 503 (not the client's abort), charged", async () => {
    const foreign = "日本語のテキストはバイトごとに数えられます。".repeat(40);
    stub.plan("anthropic", { tokens: 200, paceMs: 10 });
    const cut = await metered(mode, async () => {
      const res = await v1(mode, "/chat/completions", chat("claude-haiku-4-5", foreign, { stream: true }));
      return readStream(res, (n) => n < 5);
    });
    expectCovered("anthropic cut stream", cut);

    stub.plan("anthropic", { tokens: 500, paceMs: 10 });
    const late = await metered(mode, () => v1(mode, "/chat/completions", chat("claude-haiku-4-5", "A long answer please")));
    expect((late.result as Response).status).toBe(503);
    expect(await (late.result as Response).json()).toMatchObject({
      error: { message: expect.stringMatching(/did not answer the chat completion within/) },
    });
    expectCovered("anthropic deadline", late);
  }, 30_000);

  it("flat mode keeps a margin: a call whose worst case uses more than 80% of its credits' worth is refused", async () => {
    // Claude Sonnet bounded by bytes: 15 credits ($0.06) x 0.8 pay for about 16,000 bytes of input.
    const res = await v1(mode, "/chat/completions", chat("claude-sonnet-4-5", "x".repeat(17_000), { max_tokens: 10 }));
    if (mode === "flat") {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: { message: expect.stringMatching(/bytes of text; at the flat price of 15 credits/) },
      });
    } else {
      expect(res.status).toBe(200);
      await res.json();
    }
  }, 30_000);
});
