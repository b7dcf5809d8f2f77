import { afterAll, describe, expect, it } from "vitest";
import { POST as ASK } from "@/app/api/ai/rag/ask/route";
import { GET as LIST } from "@/app/api/ai/rag/conversations/route";
import { closeDb, db, dbKind } from "@/lib/db/client";
import { indexDocument } from "@/lib/rag/index-document";
import { indexKnowledge } from "@/lib/rag/index-knowledge";
import { retrieveChunks } from "@/lib/rag/search-chunks";
import { hasVectorSupport } from "@/lib/rag/vector-support";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { startBowEmbeddingsStub } from "@/tests/rag-eval/bow-embeddings-stub";
import { useFreshPostgres } from "@/tests/helpers/pg";

await useFreshPostgres();
afterAll(closeDb);

/**
 * RAG on a real PostgreSQL. Debian's PostgreSQL has no pgvector: the migration skips the vector table,
 * and retrieval is full-text only even with an embeddings provider configured. Where the server has
 * pgvector the same tests run hybrid.
 */
describe("RAG on PostgreSQL", () => {
  it("indexes the knowledge and answers from it, within the asking user's scope", async () => {
    expect(await dbKind()).toBe("postgres");
    const result = await indexKnowledge();
    expect(result.failed).toBe(0);
    expect(result.indexed).toBe(result.files);
    expect((await indexKnowledge()).unchanged).toBe(result.files);

    const a = await signIn();
    const b = await signIn();
    await indexDocument({
      key: "pg:a",
      userId: a.user.id,
      source: "upload",
      title: "lighthouse.md",
      text: "The lighthouse keeper's password is SALTWATER-42.",
    });

    const res = await call(ASK, {
      method: "POST",
      path: "/api/ai/rag/ask",
      cookie: a.cookie,
      body: { question: "What is the lighthouse keeper's password?" },
    });
    expect(res.status).toBe(200);
    expect(res.body.sources[0]).toMatchObject({ title: "lighthouse.md" });
    const other = await retrieveChunks("What is the lighthouse keeper's password?", { userId: b.user.id });
    expect(other.chunks.some((c) => c.title === "lighthouse.md")).toBe(false);

    const plans = await retrieveChunks("How many credits does the Pro plan include each month?", { userId: b.user.id });
    expect(plans.mode).toBe("full-text");
    expect(plans.chunks.map((c) => c.path)).toContain("plans-and-credits.md");

    const list = await call(LIST, { path: "/api/ai/rag/conversations", cookie: a.cookie });
    expect(list.body.pagination.total).toBe(1);
  });

  it("uses full-text only when the server has no pgvector, even with an embeddings provider", async () => {
    const prisma = await db();
    const vectors = await hasVectorSupport(prisma);
    const stub = await startBowEmbeddingsStub();
    const restore = setEnv({ OPENAI_API_KEY: "sk-test-pg", OPENAI_BASE_URL: stub.url });
    try {
      const r = await retrieveChunks("What is the maximum upload size?", { userId: null });
      expect(r.mode).toBe(vectors ? "hybrid" : "full-text");
      expect(r.chunks.map((c) => c.path)).toContain("files-and-email.md");
      if (!vectors) expect(stub.requests).toBe(0);
    } finally {
      restore();
      await stub.close();
    }
  });
});
