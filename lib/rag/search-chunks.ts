import { aiSettings } from "@/lib/ai/settings";
import { db, type Db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { embeddingProvider, usableVectors } from "./embed-chunks";
import { RAG } from "./settings";
import { vectorLiteral } from "./vector-support";

export interface RetrievedChunk {
  id: string;
  documentId: string;
  ordinal: number;
  content: string;
  tokens: number;
  title: string;
  /** Knowledge path (shared knowledge) or null. */
  path: string | null;
  /** Uploaded file id (the user's own documents) or null. */
  fileId: string | null;
  source: string;
  /** Ranking score of the method that produced the list (ts_rank, cosine similarity, or fused RRF). */
  score: number;
}

export interface SearchScope {
  /** The asking user: shared knowledge plus this user's own documents. null = shared knowledge only. */
  userId: string | null;
  limit?: number;
}

const COLUMNS = `c.id, c.document_id AS "documentId", c.ordinal, c.content, c.tokens, d.title, d.path, d.file_id AS "fileId", d.source`;

/**
 * Full-text ranking on the GIN-indexed tsvector: the question's lexemes (english stemming, stop words
 * dropped) joined with OR, so a chunk matching most of the question's words ranks first
 * (ts_rank normalized by document length).
 */
export async function fullTextSearch(prisma: Db, query: string, scope: SearchScope): Promise<RetrievedChunk[]> {
  const rows = await prisma.$queryRawUnsafe<RetrievedChunk[]>(
    `WITH q AS (SELECT replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery AS query)
     SELECT ${COLUMNS}, ts_rank(c.search, q.query, 1)::float8 AS score
     FROM q, rag_chunks c JOIN rag_documents d ON d.id = c.document_id
     WHERE c.search @@ q.query AND (c.user_id IS NULL OR c.user_id = $2::text)
     ORDER BY score DESC, c.id
     LIMIT $3::int`,
    query,
    scope.userId,
    scope.limit ?? RAG.topK,
  );
  return rows.map(normalize);
}

/** Nearest chunks by cosine distance on the HNSW index, within the same scope. */
export async function vectorSearch(prisma: Db, vector: number[], model: string, scope: SearchScope): Promise<RetrievedChunk[]> {
  const rows = await prisma.$queryRawUnsafe<RetrievedChunk[]>(
    `SELECT ${COLUMNS}, (1 - (e.embedding <=> $1::vector))::float8 AS score
     FROM rag_chunk_embeddings e
     JOIN rag_chunks c ON c.id = e.chunk_id
     JOIN rag_documents d ON d.id = c.document_id
     WHERE e.model = $2 AND (c.user_id IS NULL OR c.user_id = $3::text)
     ORDER BY e.embedding <=> $1::vector
     LIMIT $4::int`,
    vectorLiteral(vector),
    model,
    scope.userId,
    scope.limit ?? RAG.topK,
  );
  return rows.map(normalize);
}

/** Reciprocal-rank fusion: score = sum over rankings of 1 / (k + rank), rank starting at 1. */
export function fuseByRank(rankings: RetrievedChunk[][], limit: number, k: number = RAG.rrfK): RetrievedChunk[] {
  const fused = new Map<string, RetrievedChunk>();
  for (const ranking of rankings) {
    ranking.forEach((chunk, i) => {
      const add = 1 / (k + i + 1);
      const seen = fused.get(chunk.id);
      if (seen) seen.score += add;
      else fused.set(chunk.id, { ...chunk, score: add });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, limit);
}

export interface Retrieval {
  chunks: RetrievedChunk[];
  mode: "hybrid" | "full-text";
}

/** Whether retrieval would call the embeddings provider (pgvector present and a real provider configured). */
export async function retrievalUsesEmbeddings(): Promise<boolean> {
  return (await embeddingProvider(await db())) !== null;
}

/**
 * The chunks that answer a question within a user's scope: full-text search, fused by reciprocal
 * rank with vector search where pgvector and an embeddings provider exist. A failing embeddings call
 * falls back to full-text (logged).
 */
export async function retrieveChunks(query: string, scope: SearchScope & { signal?: AbortSignal }): Promise<Retrieval> {
  const prisma = await db();
  const limit = scope.limit ?? RAG.topK;
  const candidates = { userId: scope.userId, limit: Math.max(limit, RAG.candidates) };
  const provider = await embeddingProvider(prisma);
  if (!provider) return { chunks: (await fullTextSearch(prisma, query, candidates)).slice(0, limit), mode: "full-text" };

  const [text, vector] = await Promise.all([
    fullTextSearch(prisma, query, candidates),
    provider
      .embed([query], scope.signal)
      .then(async (result) => {
        if (!result || !usableVectors(result.vectors, 1)) return null;
        return vectorSearch(prisma, result.vectors[0], result.model || aiSettings().embeddingModel, candidates);
      })
      .catch((error) => {
        if (scope.signal?.aborted) throw error;
        log.warn("rag: query embedding failed; using full-text retrieval", { error: (error as Error)?.message });
        return null;
      }),
  ]);
  if (!vector) return { chunks: text.slice(0, limit), mode: "full-text" };
  return { chunks: fuseByRank([text, vector], limit), mode: "hybrid" };
}

function normalize(row: RetrievedChunk): RetrievedChunk {
  return { ...row, ordinal: Number(row.ordinal), tokens: Number(row.tokens), score: Number(row.score) };
}
