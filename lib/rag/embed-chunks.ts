import { aiProvider, type AiProvider } from "@/lib/ai/provider";
import { routesFor } from "@/lib/ai/routes";
import { aiSettings } from "@/lib/ai/settings";
import type { Db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { EMBEDDING_DIMENSIONS, hasVectorSupport, vectorLiteral } from "./vector-support";

const BATCH = 64;
let loggedDimensions = false;

/** The embedding provider when vectors can be both produced and stored; null otherwise. */
export async function embeddingProvider(prisma: Db): Promise<AiProvider | null> {
  if (!(await hasVectorSupport(prisma))) return null;
  let provider: AiProvider;
  try {
    provider = aiProvider();
  } catch {
    return null;
  }
  // No vectors offline, nor when no route of the embedding model offers embeddings.
  return provider.offline || routesFor(aiSettings().embeddingModel).length === 0 ? null : provider;
}

/** Checks a provider answer: one vector per text, each of the column's dimensions. */
export function usableVectors(vectors: number[][] | undefined, count: number): boolean {
  if (!vectors || vectors.length !== count) return false;
  if (vectors.every((v) => v.length === EMBEDDING_DIMENSIONS)) return true;
  if (!loggedDimensions) {
    loggedDimensions = true;
    log.warn("rag: embeddings have the wrong dimensions; vector search is skipped", { expected: EMBEDDING_DIMENSIONS, got: vectors[0]?.length });
  }
  return false;
}

/**
 * Embeds chunks and stores their vectors (best effort: a provider failure is logged and full-text
 * retrieval still covers the chunks; the next indexing run fills the gap). Returns how many were stored.
 */
export async function embedChunks(prisma: Db, chunks: { id: string; content: string }[], signal?: AbortSignal): Promise<number> {
  if (chunks.length === 0) return 0;
  const provider = await embeddingProvider(prisma);
  if (!provider) return 0;
  let stored = 0;
  try {
    for (let i = 0; i < chunks.length; i += BATCH) {
      const batch = chunks.slice(i, i + BATCH);
      const result = await provider.embed(
        batch.map((c) => c.content),
        signal,
        aiSettings().embeddingModel,
      );
      if (!result || !usableVectors(result.vectors, batch.length)) return stored;
      const values: string[] = [];
      const params: unknown[] = [];
      batch.forEach((chunk, j) => {
        params.push(chunk.id, result.model, vectorLiteral(result.vectors[j]));
        values.push(`($${params.length - 2}, $${params.length - 1}, $${params.length}::vector)`);
      });
      await prisma.$executeRawUnsafe(
        `INSERT INTO rag_chunk_embeddings (chunk_id, model, embedding) VALUES ${values.join(", ")}
         ON CONFLICT (chunk_id) DO UPDATE SET model = EXCLUDED.model, embedding = EXCLUDED.embedding`,
        ...params,
      );
      stored += batch.length;
    }
  } catch (error) {
    log.warn("rag: embedding chunks failed; they stay searchable by full text", { error: (error as Error)?.message, chunks: chunks.length });
  }
  return stored;
}

/** Chunks of a document that have no vector from the current embedding model (backfill). */
export async function chunksMissingEmbeddings(prisma: Db, documentId: string, model: string): Promise<{ id: string; content: string }[]> {
  return prisma.$queryRawUnsafe<{ id: string; content: string }[]>(
    `SELECT c.id, c.content FROM rag_chunks c
     LEFT JOIN rag_chunk_embeddings e ON e.chunk_id = c.id AND e.model = $2
     WHERE c.document_id = $1 AND e.chunk_id IS NULL ORDER BY c.ordinal`,
    documentId,
    model,
  );
}
