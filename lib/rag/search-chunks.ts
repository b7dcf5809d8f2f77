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

/** Nearest neighbours taken from the HNSW index before the scope filter (hnsw.ef_search is raised to match). */
const HNSW_POOL = 200;

/**
 * Nearest chunks by cosine distance within the same scope. First the HNSW index: the global nearest
 * HNSW_POOL vectors of the embedding model, filtered to the scope. When that leaves fewer than
 * `limit` (a user whose documents are a small part of the corpus), an exact scan restricted to the
 * scope answers instead (`+ 0` keeps the planner off the index, whose order would ignore the scope).
 */
export async function vectorSearch(prisma: Db, vector: number[], model: string, scope: SearchScope): Promise<RetrievedChunk[]> {
  const limit = scope.limit ?? RAG.topK;
  const literal = vectorLiteral(vector);
  const viaIndex = await prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL hnsw.ef_search = ${HNSW_POOL}`);
    // The planner's cost model often prefers a sequential scan + sort; the index is what makes this fast.
    await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
    return tx.$queryRawUnsafe<RetrievedChunk[]>(
      `WITH nearest AS (
         SELECT e.chunk_id, e.embedding <=> $1::vector AS distance
         FROM rag_chunk_embeddings e
         WHERE e.model = $2
         ORDER BY e.embedding <=> $1::vector
         LIMIT ${HNSW_POOL}
       )
       SELECT ${COLUMNS}, (1 - n.distance)::float8 AS score
       FROM nearest n
       JOIN rag_chunks c ON c.id = n.chunk_id
       JOIN rag_documents d ON d.id = c.document_id
       WHERE c.user_id IS NULL OR c.user_id = $3::text
       ORDER BY n.distance, c.id
       LIMIT $4::int`,
      literal,
      model,
      scope.userId,
      limit,
    );
  });
  if (viaIndex.length >= limit) return viaIndex.map(normalize);
  const rows = await prisma.$queryRawUnsafe<RetrievedChunk[]>(
    `SELECT ${COLUMNS}, (1 - (e.embedding <=> $1::vector))::float8 AS score
     FROM rag_chunks c
     JOIN rag_chunk_embeddings e ON e.chunk_id = c.id AND e.model = $2
     JOIN rag_documents d ON d.id = c.document_id
     WHERE c.user_id IS NULL OR c.user_id = $3::text
     ORDER BY (e.embedding <=> $1::vector) + 0, c.id
     LIMIT $4::int`,
    literal,
    model,
    scope.userId,
    limit,
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
      .embed([query], scope.signal, aiSettings().embeddingModel)
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
