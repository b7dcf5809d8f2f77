import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as DELETE_FILE } from "@/app/api/files/[id]/route";
import { POST as ASK, GET as ASK_GET } from "@/app/api/ai/rag/ask/route";
import { GET as DETAIL } from "@/app/api/ai/rag/conversations/[id]/route";
import { closeDb, db } from "@/lib/db/client";
import { indexKnowledge } from "@/lib/rag/index-knowledge";
import { retrieveChunks } from "@/lib/rag/search-chunks";
import { RAG, ragCreditCost } from "@/lib/rag/settings";
import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";
import { startBowEmbeddingsStub, type EmbeddingsStub } from "@/tests/rag-eval/bow-embeddings-stub";
import { balanceOf, decodeSources, pdfWithText, ragLedger, refundRows, setBalance, sseEvents, uploadDocument } from "./rag-test-kit";

const ask = (cookie: string | undefined, body: unknown) => call(ASK, { method: "POST", path: "/api/ai/rag/ask", cookie, body });
const PRO_QUESTION = "How many credits does the Pro plan include each month?";

beforeAll(async () => {
  const result = await indexKnowledge();
  expect(result.files).toBeGreaterThanOrEqual(5);
});
afterAll(closeDb);

describe("POST /api/ai/rag/ask: errors", () => {
  it("answers 401 without a session", async () => {
    const res = await ask(undefined, { question: "hello" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
  });

  it("answers 404 on every RAG endpoint when PUBLIC_AI_RAG_CHAT_ENABLED is false", async () => {
    const { cookie } = await signIn();
    const restore = setEnv({ PUBLIC_AI_RAG_CHAT_ENABLED: "false" });
    try {
      const res = await ask(cookie, { question: "What does the Pro plan cost?" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found", code: "feature_disabled" });
    } finally {
      restore();
    }
  });

  it.each([
    ["no body", undefined],
    ["an empty object", {}],
    ["a blank question", { question: "   " }],
    ["no user message", { messages: [{ role: "assistant", content: "Hi" }] }],
    ["a user message without text parts", { messages: [{ role: "user", parts: [{ type: "file", url: "x" }] }] }],
    ["an empty messages array", { messages: [] }],
  ])("answers 400 missing question for %s, charging nothing", async (_name, body) => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    const res = await ask(cookie, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Missing question/);
    expect(await balanceOf(user.id)).toBe(before);
  });

  it("answers 400 for a question that is not a string, a malformed message, or a question over 4000 characters", async () => {
    const { cookie } = await signIn();
    expect((await ask(cookie, { question: 42 })).body.error).toMatch(/question/);
    expect((await ask(cookie, { messages: [{ content: "no role" }] })).status).toBe(400);
    expect((await ask(cookie, { question: "hi", stream: "yes" })).status).toBe(400);
    const long = await ask(cookie, { question: "x".repeat(RAG.questionMaxChars + 1) });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/at most 4000 characters/);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const { cookie } = await signIn();
    const res = await call(ASK, {
      method: "POST",
      path: "/api/ai/rag/ask",
      cookie,
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/not valid JSON/);
  });

  it("answers 404 for another user's conversation and for a missing one, charging nothing", async () => {
    const a = await signIn();
    const b = await signIn();
    const first = await ask(a.cookie, { question: PRO_QUESTION });
    expect(first.status).toBe(200);
    const before = await balanceOf(b.user.id);
    for (const conversationId of [first.body.conversationId, "00000000-0000-0000-0000-000000000000", "not-a-uuid"]) {
      const res = await ask(b.cookie, { question: "And the Basic plan?", conversationId });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Conversation not found", code: "not_found" });
    }
    expect(await balanceOf(b.user.id)).toBe(before);
    const prisma = await db();
    expect(await prisma.ragMessage.count({ where: { conversationId: first.body.conversationId } })).toBe(2);
  });

  it("answers 402 when the credits do not cover the question, writing nothing", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 9);
    const res = await ask(cookie, { question: PRO_QUESTION });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/credits/i);
    expect(await balanceOf(user.id)).toBe(9);
    const prisma = await db();
    expect(await prisma.ragConversation.count({ where: { userId: user.id } })).toBe(0);
    expect(await ragLedger(user.id)).toEqual([]);
  });

  it("answers 405 with an Allow header for GET", async () => {
    const res = await call(ASK_GET, { path: "/api/ai/rag/ask" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("POST /api/ai/rag/ask with the offline provider (full-text retrieval)", () => {
  it("answers JSON with sources from the shared knowledge, and charges the documented cost", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    const res = await ask(cookie, { question: PRO_QUESTION });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.answer).toMatch(/^\[offline\]/);
    expect(body.model).toMatch(/^offline-/);
    expect(body.retrieval).toBe("full-text");
    expect(body.chunksUsed).toBe(RAG.topK);
    expect(body.sources).toHaveLength(body.chunksUsed);
    expect(body.sources.map((s: any) => s.path)).toContain("plans-and-credits.md");
    for (const s of body.sources) {
      expect(Object.keys(s).sort()).toEqual(["excerpt", "path", "score", "title"]);
      expect(s.excerpt.length).toBeLessThanOrEqual(RAG.excerptChars);
      expect(s.score).toBeGreaterThan(0);
    }
    expect(body.tokensEstimated).toBeGreaterThan(100);

    // Cost = 10 + 1 per started 500 tokens of context (the same retrieval, recomputed here).
    const { chunks } = await retrieveChunks(PRO_QUESTION, { userId: user.id });
    const expected = ragCreditCost(chunks.reduce((s, c) => s + c.tokens, 0));
    expect(expected).toBeGreaterThan(RAG.baseCost);
    expect(body.creditsUsed).toBe(expected);
    expect(body.creditsRemaining).toBe(before - expected);
    expect(await balanceOf(user.id)).toBe(before - expected);
    const ledger = await ragLedger(user.id);
    expect(ledger.map((r) => [r.type, r.amount])).toEqual([["usage", -expected]]);
    expect(ledger[0].metadata).toMatchObject({ conversationId: body.conversationId, chunksUsed: RAG.topK, retrieval: "full-text" });
  });

  it("charges nothing in classic_saas mode (creditsUsed 0, creditsRemaining 999999)", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    const restore = setEnv({ PUBLIC_PRICING_MODEL: "classic_saas" });
    try {
      const res = await ask(cookie, { question: PRO_QUESTION });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ creditsUsed: 0, creditsRemaining: 999999 });
    } finally {
      restore();
    }
    expect(await balanceOf(user.id)).toBe(before);
    expect(await ragLedger(user.id)).toEqual([]);
  });

  it("persists the conversation with the tier at creation, a title from the first question, and both messages", async () => {
    const { user, cookie } = await signIn();
    const prisma = await db();
    await prisma.user.update({ where: { id: user.id }, data: { tier: "pro" } });
    await prisma.creditBalance.update({ where: { userId: user.id }, data: { subscriptionCredits: 5000 } });
    const first = await ask(cookie, { question: "  What does   the Basic plan cost per year?  " });
    expect(first.status).toBe(200);
    const id = first.body.conversationId;

    await prisma.user.update({ where: { id: user.id }, data: { tier: "basic" } });
    const second = await ask(cookie, { question: "And how long is the free trial of a paid plan?", conversationId: id });
    expect(second.status).toBe(200);
    expect(second.body.conversationId).toBe(id);
    // The history (previous exchange) is part of the prompt and of the context that is paid for.
    expect(second.body.tokensEstimated).toBeGreaterThan(first.body.tokensEstimated - 400);

    const detail = await call(DETAIL, { path: `/api/ai/rag/conversations/${id}`, cookie, params: { id } });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id, title: "What does the Basic plan cost per year?", tier: "pro" });
    expect(detail.body.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(detail.body.messages[0].content).toBe("What does   the Basic plan cost per year?");
    for (const m of detail.body.messages) {
      expect(m.tokens).toBeGreaterThan(0);
      expect(m.model).toMatch(/^offline-/);
    }
    expect(detail.body.messages[1].content).toBe(first.body.answer);
    expect(detail.body.messages[1].sources).toEqual(first.body.sources);
    expect(detail.body.messages[3].content).toBe(second.body.answer);
  });

  it("accepts chat-SDK messages: string content, content parts and UI-message parts (the last user message is the question)", async () => {
    const { cookie } = await signIn();
    const bodies = [
      {
        messages: [
          { role: "user", content: "ignored earlier question" },
          { role: "assistant", content: "ok" },
          { role: "user", content: "What is the maximum upload size?" },
        ],
      },
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is the maximum" },
              { type: "text", text: "upload size?" },
            ],
          },
        ],
      },
      { messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "What is the maximum upload size?" }] }] },
    ];
    for (const body of bodies) {
      const res = await ask(cookie, body);
      expect(res.status).toBe(200);
      expect(res.body.sources.map((s: any) => s.path)).toContain("files-and-email.md");
      expect(res.body.answer).toMatch(/upload size/);
      expect(res.body.answer).not.toMatch(/ignored earlier/);
    }
  });

  it("streams SSE with the X-RAG headers, text chunks, a meta event with credits, and [DONE]; then persists", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    const response = await send(ASK, {
      method: "POST",
      path: "/api/ai/rag/ask",
      cookie,
      body: { question: "How do I delete a RAG conversation?", stream: true },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const sources = decodeSources(response.headers.get("x-rag-sources"));
    expect(sources.length).toBe(Number(response.headers.get("x-rag-chunks-used")));
    expect(sources.length).toBe(RAG.topK);
    expect(sources.map((s) => s.path)).toContain("document-question-answering.md");
    for (const s of sources)
      expect(s).toEqual({ title: expect.any(String), path: expect.any(String), excerpt: expect.any(String), score: expect.any(Number) });
    expect(Number(response.headers.get("x-rag-tokens-estimated"))).toBeGreaterThan(100);
    const conversationId = response.headers.get("x-rag-conversation-id");
    expect(conversationId).toBeTruthy();

    const events = sseEvents(await response.text());
    const texts = events.filter((e) => e.json?.type === "text");
    expect(texts.length).toBeGreaterThan(1);
    const answer = texts.map((e) => e.json.text).join("");
    expect(answer).toMatch(/^\[offline\]/);
    const meta = events.find((e) => e.event === "meta");
    expect(meta?.json).toMatchObject({ conversationId, chunksUsed: RAG.topK, model: expect.stringMatching(/^offline-/) });
    expect(meta?.json.creditsUsed).toBeGreaterThan(RAG.baseCost);
    expect(meta?.json.creditsRemaining).toBe(before - meta?.json.creditsUsed);
    expect(events[events.length - 1].data).toBe("[DONE]");
    expect(await balanceOf(user.id)).toBe(before - meta?.json.creditsUsed);

    const prisma = await db();
    const messages = await prisma.ragMessage.findMany({ where: { conversationId: conversationId! }, orderBy: { createdAt: "asc" } });
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "How do I delete a RAG conversation?"],
      ["assistant", answer],
    ]);
  });
});

const theirsAnswer = (res: { body: { answer: string } }) => res.body.answer;

describe("POST /api/ai/rag/ask: owner isolation of uploaded documents", () => {
  it("retrieves a fact from a user's uploaded file for that user only, and forgets it when the file is deleted", async () => {
    const a = await signIn();
    const b = await signIn();
    const file = await uploadDocument(
      a.cookie,
      "bluebird.md",
      "text/markdown",
      Buffer.from("# Project Bluebird\n\nThe launch code of project Bluebird is AZURE-7781. Only the night shift knows it.\n"),
    );
    const question = "What is the launch code of project Bluebird?";

    const mine = await ask(a.cookie, { question });
    expect(mine.status).toBe(200);
    expect(mine.body.sources[0]).toMatchObject({ title: "bluebird.md", fileId: file.id });
    expect(mine.body.sources[0].excerpt).toMatch(/AZURE-7781/);
    expect(mine.body.sources[0].path).toBeUndefined();
    // Offline, the answer quotes the closest passage sentence with its citation number.
    expect(mine.body.answer).toContain(
      'The closest passage in the context is [1] bluebird.md: "The launch code of project Bluebird is AZURE-7781."',
    );
    expect(theirsAnswer(await ask(b.cookie, { question }))).not.toMatch(/AZURE-7781/);

    const theirs = await ask(b.cookie, { question });
    expect(theirs.status).toBe(200);
    expect(theirs.body.sources.some((s: any) => s.fileId === file.id || /AZURE-7781/.test(s.excerpt))).toBe(false);
    const streamed = await send(ASK, { method: "POST", path: "/api/ai/rag/ask", cookie: b.cookie, body: { question, stream: true } });
    expect(Buffer.from(streamed.headers.get("x-rag-sources")!, "base64").toString()).not.toMatch(/AZURE-7781|bluebird/);
    await streamed.text();

    const del = await call(DELETE_FILE, { method: "DELETE", path: `/api/files/${file.id}`, cookie: a.cookie, params: { id: file.id } });
    expect(del.status).toBe(200);
    const prisma = await db();
    expect(await prisma.ragDocument.count({ where: { fileId: file.id } })).toBe(0);
    const after = await ask(a.cookie, { question });
    expect(after.body.sources.some((s: any) => s.fileId === file.id || /AZURE-7781/.test(s.excerpt))).toBe(false);
  });

  it("indexes PDF, CSV and JSON uploads, and ignores images", async () => {
    const { user, cookie } = await signIn();
    const pdf = await uploadDocument(
      cookie,
      "manual.pdf",
      "application/pdf",
      pdfWithText("The warranty of the Heliotrope toaster lasts 7 years."),
    );
    const csv = await uploadDocument(cookie, "stock.csv", "text/csv", Buffer.from("item,warehouse,count\nquokka plush,Ostrava,314\n"));
    const json = await uploadDocument(
      cookie,
      "team.json",
      "application/json",
      Buffer.from(JSON.stringify({ mascot: "Pangolin Percival", office: "Tallinn" })),
    );
    const png = await uploadDocument(
      cookie,
      "pixel.png",
      "image/png",
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]),
    );
    const prisma = await db();
    const docs = await prisma.ragDocument.findMany({ where: { userId: user.id }, select: { fileId: true, source: true, key: true } });
    expect(docs.map((d) => d.fileId).sort()).toEqual([pdf.id, csv.id, json.id].sort());
    expect(docs.every((d) => d.source === "upload" && d.key === `file:${d.fileId}`)).toBe(true);
    expect(docs.some((d) => d.fileId === png.id)).toBe(false);

    const warranty = await ask(cookie, { question: "How long is the Heliotrope toaster warranty?" });
    expect(warranty.body.sources[0]).toMatchObject({ fileId: pdf.id, title: "manual.pdf" });
    expect(warranty.body.sources[0].excerpt).toMatch(/7 years/);
    const stock = await ask(cookie, { question: "How many quokka plush are in Ostrava?" });
    expect(stock.body.sources[0]).toMatchObject({ fileId: csv.id });
    const mascot = await ask(cookie, { question: "Who is the team mascot?" });
    expect(mascot.body.sources[0]).toMatchObject({ fileId: json.id });
  });
});

describe("POST /api/ai/rag/ask with an OpenAI-compatible provider (stub): hybrid retrieval, charging, failures", () => {
  let stub: OpenAiStub;
  let embeddings: EmbeddingsStub;
  let restore: () => void;

  beforeAll(async () => {
    // Chat goes to the shared OpenAI stub; embeddings to the bag-of-words peer in front of it.
    stub = await startOpenAiStub();
    embeddings = await startBowEmbeddingsStub({ forwardTo: stub.url });
    restore = setEnv({ OPENAI_API_KEY: "sk-test-stub", OPENAI_BASE_URL: embeddings.url });
    const result = await indexKnowledge(); // unchanged documents: backfills their vectors
    expect(result.indexed).toBe(0);
    expect(result.embedded).toBe(result.chunks);
  });
  let embedCalls = 0;
  beforeEach(() => {
    stub.reset();
    embedCalls = embeddings.requests;
  });
  afterAll(async () => {
    restore();
    await embeddings.close();
    await stub.close();
  });

  it("answers with the provider's text, fuses vector and full-text retrieval, and charges only the context used", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    const res = await ask(cookie, { question: PRO_QUESTION });
    expect(res.status).toBe(200);
    expect(res.body.answer).toBe(`stub reply to: ${PRO_QUESTION}`);
    expect(res.body.retrieval).toBe("hybrid");
    expect(res.body.sources.map((s: any) => s.path)).toContain("plans-and-credits.md");
    expect(embeddings.requests - embedCalls).toBe(1);
    expect(stub.count("chat")).toBe(1);
    const sent = stub.requests.find((r) => r.endpoint === "stream")!.body;
    expect(sent.messages[0].role).toBe("system");
    expect(sent.messages[0].content).toMatch(/5,000 credits per month/);
    expect(sent.messages.at(-1)).toEqual({ role: "user", content: PRO_QUESTION });

    // The ceiling was reserved before the embedding call; the unused part came back after the answer.
    const ceiling = ragCreditCost(RAG.topK * RAG.chunkTokens);
    const ledger = await ragLedger(user.id);
    expect(ledger.map((r) => [r.type, r.amount])).toEqual([
      ["usage", -ceiling],
      ["refund", ceiling - res.body.creditsUsed],
    ]);
    expect(res.body.creditsUsed).toBeGreaterThanOrEqual(RAG.baseCost);
    expect(res.body.creditsRemaining).toBe(before - res.body.creditsUsed);
    expect(await balanceOf(user.id)).toBe(before - res.body.creditsUsed);
    const prisma = await db();
    const messages = await prisma.ragMessage.findMany({
      where: { conversationId: res.body.conversationId },
      orderBy: { createdAt: "asc" },
    });
    expect(messages[1]).toMatchObject({ role: "assistant", model: res.body.model });
  });

  it("answers 402 before ANY upstream call (no embedding, no chat) when credits are short", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 5);
    const res = await ask(cookie, { question: PRO_QUESTION });
    expect(res.status).toBe(402);
    expect(stub.count()).toBe(0);
    expect(embeddings.requests - embedCalls).toBe(0);
    expect(await balanceOf(user.id)).toBe(5);
  });

  it("persists nothing when the chat provider fails (503: every route down), charging only the question's embedding it billed", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    stub.next("chat", { kind: "error", status: 500, message: "boom" });
    const res = await ask(cookie, { question: PRO_QUESTION });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatch(/AI provider/);
    // The embedding provider answered (and bills) the question's vector: the least charge, one credit.
    expect(await balanceOf(user.id)).toBe(before - 1);
    expect((await refundRows(user.id)).length).toBe(1);
    const prisma = await db();
    expect(await prisma.ragConversation.count({ where: { userId: user.id } })).toBe(0);
  });

  it("charges an upload's owner for its vectors (rag_index, priced by use); without the credits the upload is searchable by full text only", async () => {
    const { user, cookie } = await signIn();
    const text = `# Heron notes\n\n${"The heron project ships on Tuesdays and keeps its ledger exact. ".repeat(200)}`;
    const before = await balanceOf(user.id);
    const calls = embeddings.requests;
    await uploadDocument(cookie, "heron.md", "text/markdown", Buffer.from(text));
    expect(embeddings.requests - calls).toBeGreaterThan(0);
    const prisma = await db();
    const charge = await prisma.creditOperation.findFirstOrThrow({ where: { userId: user.id, kind: "charge" } });
    expect(charge).toMatchObject({ status: "settled", model: "text-embedding-3-small" });
    expect((charge.details as { operation: string }).operation).toBe("rag_index");
    expect(await balanceOf(user.id)).toBe(before - charge.amount);
    expect(charge.amount).toBeGreaterThanOrEqual(1);

    const poor = await signIn();
    await setBalance(poor.user.id, 0);
    const calls2 = embeddings.requests;
    await uploadDocument(poor.cookie, "heron.md", "text/markdown", Buffer.from(`${text}\n\nPoor copy.`));
    expect(embeddings.requests - calls2).toBe(0);
    expect(await prisma.creditOperation.count({ where: { userId: poor.user.id, kind: "charge" } })).toBe(0);
    const vectors = await prisma.$queryRaw<{ n: bigint }[]>`
      SELECT COUNT(e.chunk_id) AS n FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id
      LEFT JOIN rag_chunk_embeddings e ON e.chunk_id = c.id WHERE d.user_id = ${poor.user.id}`;
    expect(Number(vectors[0].n)).toBe(0);
  });

  it("falls back to full-text retrieval when the embeddings call fails", async () => {
    const { cookie } = await signIn();
    embeddings.failNext();
    const res = await ask(cookie, { question: PRO_QUESTION });
    expect(res.status).toBe(200);
    expect(res.body.retrieval).toBe("full-text");
    expect(res.body.sources.map((s: any) => s.path)).toContain("plans-and-credits.md");
  });

  it("streams the provider's answer; a failure before any content is a 503 charging only the question's embedding", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    const ok = await send(ASK, { method: "POST", path: "/api/ai/rag/ask", cookie, body: { question: PRO_QUESTION, stream: true } });
    expect(ok.status).toBe(200);
    const events = sseEvents(await ok.text());
    expect(
      events
        .filter((e) => e.json?.type === "text")
        .map((e) => e.json.text)
        .join(""),
    ).toBe(`stub reply to: ${PRO_QUESTION}`);
    const meta = events.find((e) => e.event === "meta")!.json;
    expect(await balanceOf(user.id)).toBe(before - meta.creditsUsed);

    stub.next("stream", { kind: "error", status: 500 });
    const failed = await call(ASK, { method: "POST", path: "/api/ai/rag/ask", cookie, body: { question: PRO_QUESTION, stream: true } });
    expect(failed.status).toBe(503);
    expect(failed.body.error).toMatch(/AI provider/);
    expect(await balanceOf(user.id)).toBe(before - meta.creditsUsed - 1);
  });

  it("aborts the upstream stream when the client goes away; delivered content keeps the charge and is saved", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    stub.chunkDelayMs = 40;
    const controller = new AbortController();
    try {
      const res = await send(ASK, {
        method: "POST",
        path: "/api/ai/rag/ask",
        cookie,
        body: { question: PRO_QUESTION, stream: true },
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const conversationId = res.headers.get("x-rag-conversation-id")!;
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toMatch(/"type":"text"/);
      controller.abort();
      await reader.cancel().catch(() => {});
      await stub.waitForClientClose(1);
      const prisma = await db();
      await expect.poll(() => prisma.ragMessage.count({ where: { conversationId } }), { timeout: 5000 }).toBe(2);
      const answer = await prisma.ragMessage.findFirstOrThrow({ where: { conversationId, role: "assistant" } });
      expect(`stub reply to: ${PRO_QUESTION}`.startsWith(answer.content)).toBe(true);
      expect(answer.content.length).toBeLessThan(`stub reply to: ${PRO_QUESTION}`.length);
      expect(await balanceOf(user.id)).toBeLessThan(before);
    } finally {
      stub.chunkDelayMs = 0;
    }
  });

  it("sends an error event, charges what was delivered and stores nothing when the provider breaks mid-stream", async () => {
    const { user, cookie } = await signIn();
    const before = await balanceOf(user.id);
    stub.next("stream", { kind: "break", afterChunks: 2 });
    const res = await send(ASK, { method: "POST", path: "/api/ai/rag/ask", cookie, body: { question: PRO_QUESTION, stream: true } });
    expect(res.status).toBe(200);
    const events = sseEvents(await res.text());
    expect(events.some((e) => e.json?.type === "text")).toBe(true);
    expect(events.find((e) => e.json?.type === "error")?.json.error).toMatch(/AI provider/);
    expect(events.some((e) => e.event === "meta")).toBe(false);
    expect(await balanceOf(user.id)).toBe(before - 1);
    const prisma = await db();
    expect(await prisma.ragConversation.count({ where: { userId: user.id } })).toBe(0);
  });
});
