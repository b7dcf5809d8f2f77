import { openCharge } from "@/lib/ai/pricing/ai-charge";
import { oneShotFailure, runChargedCall } from "@/lib/ai/charged-call";
import { billOneShot } from "@/lib/ai/pricing/meter";
import { pricedModel } from "@/lib/ai/catalog/models";
import { aiProvider, type AiProvider, type EmbeddingResult } from "@/lib/ai/providers/provider";
import { meteredQuote, quoteEmbedding } from "@/lib/ai/pricing/quote-call";
import { routesFor } from "@/lib/ai/providers/routes";
import { aiSettings } from "@/lib/ai/settings";
import type { Db } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
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
    log.warn("rag: embeddings have the wrong dimensions; vector search is skipped", {
      expected: EMBEDDING_DIMENSIONS,
      got: vectors[0]?.length,
    });
  }
  return false;
}

/**
 * One batch of embeddings, charged to `payer` when one is given (a user's upload: what its vectors
 * cost upstream, priced by use in every pricing mode, operation "rag_index"); null when the payer
 * cannot pay for it (the chunks then stay searchable by full text only).
 */
async function embedBatch(
  provider: AiProvider,
  texts: string[],
  payer: string | null,
  signal?: AbortSignal,
): Promise<EmbeddingResult | null> {
  const modelId = aiSettings().embeddingModel;
  if (!payer) return provider.embed(texts, signal, modelId);
  const model = pricedModel(modelId, "embedding");
  const quote = meteredQuote(model, quoteEmbedding(model, texts).usage);
  let charge;
  try {
    charge = await openCharge({
      userId: payer,
      operation: "rag_index",
      quote,
      metadata: { provider: provider.name, chunks: texts.length },
    });
  } catch (error) {
    if (isAppError(error) && error.code === "insufficient_credits") {
      log.info("rag: an upload's vectors are not made: its owner's credits do not cover them (full-text search only)", {
        userId: payer,
        chunks: texts.length,
      });
      return null;
    }
    throw error;
  }
  const { value } = await runChargedCall({
    charge,
    signal,
    call: (s) => provider.embed(texts, s, modelId),
    answered: (r) => ({
      attempts: billOneShot(
        quote,
        {
          route: r.route ?? null,
          usage: { promptTokens: r.promptTokens ?? quote.worst.promptTokens },
          reported: r.promptTokens !== undefined,
        },
        undefined,
        r.spent,
      ),
      complete: true,
    }),
    failed: (error) => oneShotFailure(quote, error),
  });
  return value;
}

/**
 * Embeds chunks and stores their vectors (best effort: a provider failure is logged and full-text
 * retrieval still covers the chunks; the next indexing run fills the gap). `payer`: the user whose
 * upload this is, charged for the embeddings (the shared knowledge folder is the operator's).
 * Returns how many were stored.
 */
export async function embedChunks(
  prisma: Db,
  chunks: { id: string; content: string }[],
  signal?: AbortSignal,
  payer: string | null = null,
): Promise<number> {
  if (chunks.length === 0) return 0;
  const provider = await embeddingProvider(prisma);
  if (!provider) return 0;
  let stored = 0;
  try {
    for (let i = 0; i < chunks.length; i += BATCH) {
      const batch = chunks.slice(i, i + BATCH);
      const result = await embedBatch(
        provider,
        batch.map((c) => c.content),
        payer,
        signal,
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
    log.warn("rag: embedding chunks failed; they stay searchable by full text", {
      error: (error as Error)?.message,
      chunks: chunks.length,
    });
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
