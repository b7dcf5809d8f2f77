import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db/client";
import { indexDocument, removeDocument } from "@/lib/rag/index-document";
import { indexKnowledge } from "@/lib/rag/index-knowledge";
import { fullTextSearch, retrieveChunks, vectorSearch } from "@/lib/rag/search-chunks";
import { hasVectorSupport } from "@/lib/rag/vector-support";
import { setEnv } from "@/tests/helpers/env";
import { signIn } from "@/tests/helpers/http";
import { bowEmbedding, startBowEmbeddingsStub, type EmbeddingsStub } from "@/tests/rag-eval/bow-embeddings-stub";

/** Indexing and retrieval through lib/rag on the embedded database (pgvector present), embeddings from a local peer. */
let embeddings: EmbeddingsStub;
let restore: () => void;
const dir = mkdtempSync(path.join(tmpdir(), "rag-knowledge-"));

beforeAll(async () => {
  embeddings = await startBowEmbeddingsStub();
  restore = setEnv({
    OPENAI_API_KEY: "sk-test-retrieval",
    OPENAI_BASE_URL: embeddings.url,
    AI_EMBEDDING_MODEL: "bow-embedding",
    AI_MODELS: JSON.stringify({
      "bow-embedding": { kind: "embedding", vendor: "openai", contextWindow: 8191, perMillionTokens: { input: 0.02 } },
    }),
  });
});
afterAll(async () => {
  restore();
  await embeddings.close();
  await closeDb();
  rmSync(dir, { recursive: true, force: true });
});

describe("indexKnowledge", () => {
  it("indexes a folder incrementally by content hash, re-chunks changed files and removes deleted ones", async () => {
    writeFileSync(path.join(dir, "alpha.md"), "# Alpha guide\n\nThe alpha widget glows teal at night.\n");
    writeFileSync(path.join(dir, "beta.txt"), "Beta facts: the beta widget hums in B flat.\n");
    writeFileSync(path.join(dir, "ignored.png"), "not indexed");
    const progress: string[] = [];
    const first = await indexKnowledge({ dir, onProgress: (p) => progress.push(`${p.done}/${p.total} ${p.file} ${p.status}`) });
    expect(first).toMatchObject({ files: 2, indexed: 2, unchanged: 0, removed: 0, failed: 0 });
    expect(first.embedded).toBe(first.chunks);
    expect(progress).toEqual(["1/2 alpha.md indexed", "2/2 beta.txt indexed"]);
    const prisma = await db();
    const alpha = await prisma.ragDocument.findUniqueOrThrow({ where: { key: "knowledge:alpha.md" } });
    expect(alpha).toMatchObject({ title: "Alpha guide", path: "alpha.md", userId: null, source: "knowledge" });

    const again = await indexKnowledge({ dir });
    expect(again).toMatchObject({ indexed: 0, unchanged: 2, embedded: 0 });
    const before = await prisma.ragChunk.findMany({ where: { documentId: alpha.id }, select: { id: true } });

    writeFileSync(path.join(dir, "alpha.md"), "# Alpha guide\n\nThe alpha widget now glows crimson.\n");
    rmSync(path.join(dir, "beta.txt"));
    const changed = await indexKnowledge({ dir });
    expect(changed).toMatchObject({ files: 1, indexed: 1, removed: 1 });
    const after = await prisma.ragChunk.findMany({ where: { documentId: alpha.id }, select: { id: true, content: true } });
    expect(after.map((c) => c.id)).not.toEqual(before.map((c) => c.id));
    expect(after.map((c) => c.content).join(" ")).toMatch(/crimson/);
    expect(await prisma.ragDocument.count({ where: { key: "knowledge:beta.txt" } })).toBe(0);
    // The tsvector was written with to_tsvector('english', content).
    expect((await fullTextSearch(prisma, "crimson glowing widgets", { userId: null })).map((c) => c.path)).toEqual(["alpha.md"]);
  });

  it("leaves the indexed knowledge alone when the folder is missing", async () => {
    const result = await indexKnowledge({ dir: path.join(dir, "does-not-exist") });
    expect(result).toMatchObject({ files: 0, removed: 0 });
    const prisma = await db();
    expect(await prisma.ragDocument.count({ where: { key: "knowledge:alpha.md" } })).toBe(1);
  });
});

describe("retrieval scope", () => {
  let a: { id: string };
  let b: { id: string };

  beforeAll(async () => {
    a = (await signIn()).user;
    b = (await signIn()).user;
    await indexDocument({
      key: "test:a",
      userId: a.id,
      source: "upload",
      title: "a.md",
      text: "# Orchard\n\nThe orchard of user A grows violet quinces near Brno.",
    });
    await indexDocument({
      key: "test:b",
      userId: b.id,
      source: "upload",
      title: "b.md",
      text: "# Garage\n\nUser B keeps a turquoise tractor in the garage.",
    });
  });

  it("has pgvector on the embedded database", async () => {
    expect(await hasVectorSupport(await db())).toBe(true);
  });

  it("full-text and vector search return shared chunks and the user's own, never another user's", async () => {
    const prisma = await db();
    const q = "violet quinces orchard Brno";
    const forA = await fullTextSearch(prisma, q, { userId: a.id });
    expect(forA[0]).toMatchObject({ title: "a.md" });
    expect((await fullTextSearch(prisma, q, { userId: b.id })).some((c) => c.title === "a.md")).toBe(false);
    expect((await fullTextSearch(prisma, q, { userId: null })).some((c) => c.title === "a.md")).toBe(false);

    const vector = bowEmbedding(q);
    const viaIndex = await vectorSearch(prisma, vector, "bow-embedding", { userId: a.id, limit: 2 });
    expect(viaIndex[0]).toMatchObject({ title: "a.md" });
    expect((await vectorSearch(prisma, vector, "bow-embedding", { userId: b.id, limit: 2 })).some((c) => c.title === "a.md")).toBe(false);

    // A limit larger than the HNSW pool's in-scope hits takes the exact, scope-restricted scan.
    const exact = await vectorSearch(prisma, vector, "bow-embedding", { userId: b.id, limit: 1000 });
    const inScope = await prisma.ragChunk.count({ where: { OR: [{ userId: null }, { userId: b.id }] } });
    expect(exact).toHaveLength(inScope);
    expect(exact.some((c) => c.title === "a.md")).toBe(false);
    expect(exact.some((c) => c.title === "b.md")).toBe(true);
    expect(exact.map((c) => c.score)).toEqual([...exact.map((c) => c.score)].sort((x, y) => y - x));
    // Vectors of another embedding model are never compared.
    expect(await vectorSearch(prisma, vector, "another-model", { userId: a.id, limit: 5 })).toEqual([]);
  });

  it("retrieveChunks fuses both rankings (hybrid) within the scope", async () => {
    const mine = await retrieveChunks("Where does the turquoise tractor live?", { userId: b.id });
    expect(mine.mode).toBe("hybrid");
    expect(mine.chunks[0]).toMatchObject({ title: "b.md" });
    const theirs = await retrieveChunks("Where does the turquoise tractor live?", { userId: a.id });
    expect(theirs.chunks.some((c) => c.title === "b.md")).toBe(false);
  });

  it("removeDocument deletes the chunks and their vectors", async () => {
    const prisma = await db();
    const doc = await prisma.ragDocument.findUniqueOrThrow({ where: { key: "test:b" } });
    const ids = (await prisma.ragChunk.findMany({ where: { documentId: doc.id }, select: { id: true } })).map((c) => c.id);
    expect(await removeDocument("test:b")).toBe(true);
    expect(await prisma.ragChunk.count({ where: { documentId: doc.id } })).toBe(0);
    const left = await prisma.$queryRawUnsafe<{ n: number }[]>(
      "SELECT count(*)::int AS n FROM rag_chunk_embeddings WHERE chunk_id = ANY($1::text[])",
      ids,
    );
    expect(left[0].n).toBe(0);
    expect(await removeDocument("test:b")).toBe(false);
  });
});
