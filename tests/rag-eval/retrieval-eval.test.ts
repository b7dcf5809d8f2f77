import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb } from "@/lib/db/client";
import { indexKnowledge } from "@/lib/rag/index-knowledge";
import { retrieveChunks, type RetrievedChunk } from "@/lib/rag/search-chunks";
import { setEnv } from "@/tests/helpers/env";
import { startBowEmbeddingsStub, type EmbeddingsStub } from "./bow-embeddings-stub";
import { EVAL_QUESTIONS } from "./questions";

/**
 * Retrieval quality over the shipped knowledge folder: recall@5 of full-text search alone (offline,
 * as on a PostgreSQL without pgvector) and of hybrid retrieval (full-text fused with vector search on
 * PGlite's pgvector, embeddings from a local bag-of-words embeddings peer). Prints both; asserts the
 * full-text floor of 0.9 and that hybrid is not worse than full-text by more than one question.
 */
const K = 5;
const FULL_TEXT_FLOOR = 0.9;
const flat = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

function hit(chunks: RetrievedChunk[], q: (typeof EVAL_QUESTIONS)[number]): boolean {
  const passage = flat(q.passage);
  return chunks.slice(0, K).some((c) => c.path === q.path && flat(c.content).includes(passage));
}

async function evaluate(mode: "full-text" | "hybrid") {
  let hits = 0;
  let rankSum = 0;
  const misses: string[] = [];
  for (const q of EVAL_QUESTIONS) {
    const r = await retrieveChunks(q.question, { userId: null, limit: K });
    expect(r.mode).toBe(mode);
    const rank = r.chunks.findIndex((c) => c.path === q.path && flat(c.content).includes(flat(q.passage)));
    if (hit(r.chunks, q)) {
      hits++;
      rankSum += 1 / (rank + 1);
    } else misses.push(`${q.question} -> ${r.chunks.map((c) => `${c.path}#${c.ordinal}`).join(", ")}`);
  }
  return { recall: hits / EVAL_QUESTIONS.length, mrr: rankSum / EVAL_QUESTIONS.length, misses };
}

let stub: EmbeddingsStub;
let restore: () => void = () => {};

beforeAll(async () => {
  stub = await startBowEmbeddingsStub();
  const result = await indexKnowledge({ dir: path.resolve(__dirname, "../../knowledge") });
  expect(result.failed).toBe(0);
  expect(result.files).toBeGreaterThanOrEqual(5);
});

afterAll(async () => {
  restore();
  await stub?.close();
  await closeDb();
});

describe("RAG retrieval evaluation", () => {
  it("has at least 30 questions, each passage present verbatim in its knowledge document", async () => {
    expect(EVAL_QUESTIONS.length).toBeGreaterThanOrEqual(30);
    const { readFile } = await import("node:fs/promises");
    for (const q of EVAL_QUESTIONS) {
      const doc = await readFile(path.resolve(__dirname, "../../knowledge", q.path), "utf8");
      expect(flat(doc), q.question).toContain(flat(q.passage));
    }
  });

  it(`full-text alone reaches recall@${K} >= ${FULL_TEXT_FLOOR}, and hybrid retrieval is reported`, async () => {
    const fullText = await evaluate("full-text");

    // Hybrid: a (local) embeddings provider appears; re-indexing backfills the vectors of unchanged documents.
    restore = setEnv({ OPENAI_API_KEY: "sk-test-eval", OPENAI_BASE_URL: stub.url });
    const reindex = await indexKnowledge({ dir: path.resolve(__dirname, "../../knowledge") });
    expect(reindex.indexed).toBe(0);
    expect(reindex.embedded).toBe(reindex.chunks);
    const hybrid = await evaluate("hybrid");

    const pct = (x: number) => x.toFixed(3);
    console.log(
      [
        `RAG retrieval eval: ${EVAL_QUESTIONS.length} questions, ${reindex.chunks} chunks`,
        `  full-text  recall@${K} = ${pct(fullText.recall)}  MRR = ${pct(fullText.mrr)}`,
        `  hybrid     recall@${K} = ${pct(hybrid.recall)}  MRR = ${pct(hybrid.mrr)}`,
        ...fullText.misses.map((m) => `  full-text miss: ${m}`),
        ...hybrid.misses.map((m) => `  hybrid miss: ${m}`),
      ].join("\n"),
    );
    expect(fullText.recall).toBeGreaterThanOrEqual(FULL_TEXT_FLOOR);
    expect(hybrid.recall).toBeGreaterThanOrEqual(fullText.recall - 1 / EVAL_QUESTIONS.length);
  });
});
