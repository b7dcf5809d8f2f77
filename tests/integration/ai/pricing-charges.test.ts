import { describe, expect, it } from "vitest";
import { POST as chatPost } from "@/app/api/ai/chat/route";
import { POST as contentPost } from "@/app/api/ai/generate-content/route";
import { POST as imagePost } from "@/app/api/ai/image-gen/route";
import { POST as askPost } from "@/app/api/ai/rag/ask/route";
import { POST as speechPost } from "@/app/api/ai/speech-to-text/route";
import { POST as streamPost } from "@/app/api/ai/stream/route";
import { db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { wav } from "@/tests/unit/ai/audio-fixtures";
import { balanceOf, readSse, setBalance, stubProviderForFile } from "./ai-test-kit";

/**
 * Exact charges of every AI call kind in both pricing modes, against the OpenAI wire stub reporting
 * known usage: flat charges SPEC's fixed costs, metered charges cost x markup / credit value rounded
 * up; either way every ledger row records model, tokens (or images, audio), provider cost and credits.
 */
const stub = await stubProviderForFile();

/** Metered at $0.0001 a credit and a markup of 1.5: 1 credit per 66.67 micros of upstream cost. */
const METERED = { AI_PRICING_MODE: "metered", CREDIT_VALUE_USD: "0.0001", AI_MARKUP: "1.5" };
const credits = (micros: number) => Math.max(1, Math.ceil((micros * 1.5) / 100));

async function richUser(balance = 1_000_000) {
  const session = await signIn();
  await setBalance(session.user.id, balance);
  return session;
}

async function settledCharge(userId: string) {
  const prisma = await db();
  const op = await prisma.creditOperation.findFirstOrThrow({ where: { userId, kind: "charge" }, orderBy: { createdAt: "desc" } });
  const rows = await prisma.creditTransaction.findMany({ where: { operationId: op.id }, orderBy: { createdAt: "asc" } });
  return { op, rows, metadata: (op.details as { metadata: Record<string, unknown> }).metadata };
}

function withEnv<T>(values: Record<string, string | undefined>, run: () => Promise<T>): Promise<T> {
  const undo = setEnv(values);
  return run().finally(undo);
}

describe("flat pricing (the default)", () => {
  it("charges SPEC's fixed cost and records the call's usage and provider cost", async () => {
    const { user, cookie } = await richUser(1000);
    stub.usage = { promptTokens: 1200, cachedTokens: 200, completionTokens: 800 };
    const res = await call(chatPost, {
      path: "/api/ai/chat",
      cookie,
      body: { messages: [{ role: "user", content: "Hi" }], model: "gpt-4o" },
    });
    expect(res.status).toBe(200);
    expect(res.body.cost).toBe(15);
    expect(await balanceOf(user.id)).toBe(985);
    const { op, metadata } = await settledCharge(user.id);
    // gpt-4o: 1,000 x $2.50 + 200 cached x $1.25 + 800 x $10 per million tokens = 10,750 micros.
    expect(op).toMatchObject({ status: "settled", amount: 15, model: "gpt-4o", costMicros: BigInt(10_750) });
    expect(metadata).toMatchObject({
      model: "gpt-4o",
      pricing: "flat",
      promptTokens: 1200,
      cachedPromptTokens: 200,
      completionTokens: 800,
      costMicros: 10_750,
      credits: 15,
    });
  });

  it("refuses a 4 MiB chat on gpt-4.1 with maxTokens 128,000 with a 400 naming the limit, charging nothing and calling no one", async () => {
    const { user, cookie } = await richUser(1000);
    const messages = Array.from({ length: 41 }, () => ({
      role: "user",
      content: "lorem ipsum dolor sit amet ".repeat(3_700).slice(0, 99_900),
    }));
    const big = { messages, model: "gpt-4.1", maxTokens: 128_000 };
    expect(JSON.stringify(big).length).toBeGreaterThan(4_000_000);
    const res = await call(chatPost, { path: "/api/ai/chat", cookie, body: big });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Invalid body: maxTokens: at most 32,768 for gpt-4.1");
    const lower = await call(chatPost, { path: "/api/ai/chat", cookie, body: { ...big, maxTokens: 1000 } });
    expect(lower.status).toBe(400);
    // 15 credits are worth $0.059994; a flat call may spend 80% of that ($0.047995) upstream.
    expect(lower.body.error).toMatch(
      /^Invalid body: messages: the input is about [\d,]+ tokens; at the flat price of 15 credits \(\$0\.0480 of gpt-4\.1 usage\) it may be at most about 23,993 tokens$/,
    );
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(1000);
  });

  it("caps a chat without maxTokens at the output its flat price pays for (after the 20% margin)", async () => {
    const { cookie } = await richUser(1000);
    const res = await call(chatPost, {
      path: "/api/ai/chat",
      cookie,
      body: { messages: [{ role: "user", content: "Hi" }], model: "gpt-4.1" },
    });
    expect(res.status).toBe(200);
    expect(stub.requests[0].body.max_tokens).toBe(Math.floor((47_995 - 16) / 8));
  });
});

describe("metered pricing", () => {
  it("chat: reserves the worst case, settles on the reported usage and returns the rest in the same settlement", async () => {
    const { user, cookie } = await richUser();
    stub.usage = { promptTokens: 1200, cachedTokens: 200, completionTokens: 800 };
    const res = await withEnv(METERED, () =>
      call(chatPost, {
        path: "/api/ai/chat",
        cookie,
        body: { messages: [{ role: "user", content: "Hi" }], model: "gpt-4o", maxTokens: 1000 },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.cost).toBe(credits(10_750));
    expect(res.body.usage).toEqual({ promptTokens: 1200, completionTokens: 800 });
    expect(await balanceOf(user.id)).toBe(1_000_000 - credits(10_750));
    const { op, rows, metadata } = await settledCharge(user.id);
    // Reserved: 8 prompt tokens x $2.50 + 1,000 output x $10 = 10,020 micros -> 151 credits; the usage cost more: the rest is drawn.
    expect(rows.map((r) => [r.type, r.amount])).toEqual([
      ["usage", -credits(10_020)],
      ["usage", -(credits(10_750) - credits(10_020))],
    ]);
    expect(op).toMatchObject({ status: "settled", amount: credits(10_750), costMicros: BigInt(10_750) });
    expect(metadata).toMatchObject({
      pricing: "metered",
      promptTokens: 1200,
      cachedPromptTokens: 200,
      completionTokens: 800,
      costMicros: 10_750,
      credits: 162,
    });
    expect(stub.requests[0].body.max_tokens).toBe(1000);
  });

  it("chat without maxTokens: reserves the model's whole output, refunds the unused part", async () => {
    const { user, cookie } = await richUser();
    stub.usage = { promptTokens: 10, completionTokens: 20 };
    const res = await withEnv(METERED, () =>
      call(chatPost, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "Hi" }] } }),
    );
    // gpt-4o-mini: 10 x $0.15 + 20 x $0.60 = 13.5 -> 14 micros.
    expect(res.body.cost).toBe(credits(14));
    const { rows } = await settledCharge(user.id);
    const reserved = credits(8 * 0.15 + 16_384 * 0.6);
    expect(rows.map((r) => [r.type, r.amount])).toEqual([
      ["usage", -reserved],
      ["refund", reserved - credits(14)],
    ]);
    expect(stub.requests[0].body.max_tokens).toBe(16_384);
  });

  it("402 names what the call may cost and what to lower; nothing is charged or called", async () => {
    const { user, cookie } = await richUser(100);
    const res = await withEnv(METERED, () =>
      call(chatPost, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "Hi" }], model: "gpt-4.1" } }),
    );
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(
      /^Insufficient credits: this call may cost up to 3,?93\d credits \(gpt-4\.1: about 8 input tokens, up to 32,768 output tokens\) and you have 100 available; lower maxTokens \(at most 8\d\d fits your balance\) or the input$/,
    );
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(100);
  });

  it("a 4 MiB chat on gpt-4.1 is reserved at its worst case", async () => {
    const { user, cookie } = await richUser(10_000_000);
    const messages = Array.from({ length: 41 }, () => ({
      role: "user",
      content: "lorem ipsum dolor sit amet ".repeat(3_700).slice(0, 99_900),
    }));
    stub.usage = { promptTokens: 1000, completionTokens: 10 };
    const res = await withEnv(METERED, () =>
      call(chatPost, { path: "/api/ai/chat", cookie, body: { messages, model: "gpt-4.1", maxTokens: 32_768 } }),
    );
    expect(res.status).toBe(200);
    const { rows, metadata } = await settledCharge(user.id);
    const reserved = -rows[0].amount;
    // About 750k prompt tokens x $2 + 32,768 x $8 per million: about $1.8, so about 26,000 credits.
    expect(reserved).toBeGreaterThan(credits(700_000 * 2 + 32_768 * 8));
    expect(metadata).toMatchObject({ reserved });
    expect(await balanceOf(user.id)).toBe(10_000_000 - credits(1000 * 2 + 10 * 8));
  });

  it("batch: one reservation for every item's worst case, settled at the answered items' prices", async () => {
    const { user, cookie } = await richUser();
    stub.usage = { promptTokens: 100, completionTokens: 100 };
    stub.next("chat", { kind: "error", status: 500 });
    const item = { messages: [{ role: "user", content: "Hi" }], maxTokens: 200 };
    const res = await withEnv(METERED, () => call(chatPost, { path: "/api/ai/chat", cookie, body: { requests: [item, item, item] } }));
    expect(res.status).toBe(200);
    const each = credits(100 * 0.15 + 100 * 0.6);
    expect(res.body.cost).toBe(2 * each);
    expect(res.body.results.filter((r: { error?: string }) => r.error)).toHaveLength(1);
    expect(await balanceOf(user.id)).toBe(1_000_000 - 2 * each);
  });

  it("stream: settled on the usage chunk (include_usage); the meta event says what was charged", async () => {
    const { user, cookie } = await richUser();
    stub.usage = { promptTokens: 500, completionTokens: 300 };
    const events = await withEnv(METERED, async () =>
      readSse(
        await send(streamPost, {
          method: "POST",
          path: "/api/ai/stream",
          cookie,
          body: { messages: [{ role: "user", content: "Hi" }], model: "gpt-4o" },
        }),
      ),
    );
    expect(stub.requests[0].body.stream_options).toEqual({ include_usage: true });
    const cost = credits(500 * 2.5 + 300 * 10);
    expect(events.find((e) => e.event === "meta")?.json).toEqual({ creditsUsed: cost, creditsRemaining: 1_000_000 - cost });
    expect(await balanceOf(user.id)).toBe(1_000_000 - cost);
  });

  it("stream aborted half way: charged for what was delivered, never the worst case, never zero", async () => {
    const { user, cookie } = await richUser();
    stub.chunkDelayMs = 30;
    stub.next("stream", { kind: "reply", text: Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ") });
    const client = new AbortController();
    await withEnv(METERED, async () => {
      const res = await send(streamPost, {
        method: "POST",
        path: "/api/ai/stream",
        cookie,
        body: { messages: [{ role: "user", content: "Hi" }], model: "gpt-4o" },
        signal: client.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let text = "";
      while (!text.includes("word20")) text += new TextDecoder().decode((await reader.read()).value);
      client.abort();
      await reader.cancel();
      await stub.waitForClientClose(1, 3000);
    });
    const { op, metadata } = await settledCharge(user.id);
    expect(metadata).toMatchObject({ partial: true, delivered: true });
    const delivered = metadata.completionTokens as number;
    expect(delivered).toBeGreaterThan(20);
    expect(delivered).toBeLessThan(200 * 3);
    expect(op.amount).toBe(credits(Math.ceil((metadata.promptTokens as number) * 2.5 + delivered * 10)));
    expect(op.amount).toBeLessThan(credits(16_384 * 10));
  });

  it("content generation, image generation, speech to text and RAG answers are priced by their usage", async () => {
    const { user, cookie } = await richUser();
    await withEnv(METERED, async () => {
      stub.usage = { promptTokens: 300, completionTokens: 400 };
      const content = await readSse(
        await send(contentPost, {
          method: "POST",
          path: "/api/ai/generate-content",
          cookie,
          body: { template: "email", fields: { recipient: "Ann", purpose: "thanks" } },
        }),
      );
      expect(content.find((e) => e.event === "meta")?.json.creditsUsed).toBe(credits(300 * 0.15 + 400 * 0.6));

      const image = await call(imagePost, { path: "/api/ai/image-gen", cookie, body: { prompt: "a cat", quality: "low" } });
      expect(image.status).toBe(200);
      // gpt-image-1, low, 1024x1024: $0.011, plus 2 prompt tokens at $5 per million.
      expect(image.body.credits_used).toBe(credits(11_000 + 10));

      stub.transcription = { text: "hello", language: "english", duration: 90 };
      const form = new FormData();
      form.append("audio", new Blob([new Uint8Array(wav(2))], { type: "audio/wav" }), "memo.wav");
      const speech = await call(speechPost, { path: "/api/ai/speech-to-text", cookie, rawBody: form });
      expect(speech.status).toBe(200);
      // whisper-1 bills the 90 seconds the provider decoded: $0.009.
      const speechOp = await settledCharge(user.id);
      expect(speechOp.op).toMatchObject({ amount: credits(9000), costMicros: BigInt(9000) });
      expect(speechOp.metadata).toMatchObject({ audioSeconds: 90 });

      stub.usage = { promptTokens: 900, completionTokens: 100 };
      const ask = await call(askPost, { path: "/api/ai/rag/ask", cookie, body: { question: "What does the Pro plan cost?" } });
      expect(ask.status).toBe(200);
      const rag = await settledCharge(user.id);
      // The answer's usage, plus the question's embedding when retrieval embedded it.
      const embedding = ask.body.retrieval === "hybrid" ? Math.ceil(8 * 0.02) : 0;
      expect(rag.op.costMicros).toBe(BigInt(Math.ceil(900 * 0.15 + 100 * 0.6) + embedding));
      expect(ask.body.creditsUsed).toBe(rag.op.amount);
    });
  });

  it("an answer from the answer cache costs the minimum per call", async () => {
    const { cookie } = await richUser();
    const body = { messages: [{ role: "user", content: "Cache me" }], cache: true, maxTokens: 100 };
    const [first, second] = await withEnv(METERED, async () => [
      await call(chatPost, { path: "/api/ai/chat", cookie, body }),
      await call(chatPost, { path: "/api/ai/chat", cookie, body }),
    ]);
    expect(first.headers.get("x-cache")).toBe("MISS");
    expect(second.headers.get("x-cache")).toBe("HIT");
    expect(second.body.cost).toBe(1);
  });

  it("refuses a model the catalog cannot price with a clear 400, never charging it at zero", async () => {
    const { user, cookie } = await richUser(1000);
    const res = await withEnv({ ...METERED, AI_ALLOWED_MODELS: "gpt-4o-mini,unpriced-model" }, () =>
      call(chatPost, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "Hi" }], model: "unpriced-model" } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      'Invalid body: model: "unpriced-model" is not a chat model of the model catalog, so it cannot be priced; add it to AI_MODELS or use a listed one',
    );
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(1000);
  });

  it("applies an operator's price override (AI_MODELS)", async () => {
    const { cookie } = await richUser();
    stub.usage = { promptTokens: 1000, completionTokens: 1000 };
    const res = await withEnv(
      { ...METERED, AI_MODELS: JSON.stringify({ "gpt-4o-mini": { perMillionTokens: { input: 10, output: 20 } } }) },
      () => call(chatPost, { path: "/api/ai/chat", cookie, body: { messages: [{ role: "user", content: "Hi" }], maxTokens: 100 } }),
    );
    expect(res.body.cost).toBe(credits(1000 * 10 + 1000 * 20));
  });
});
