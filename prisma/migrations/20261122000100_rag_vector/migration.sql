-- Vector search where the `vector` extension exists (PGlite ships it; managed PostgreSQL has it).
-- On a PostgreSQL without pgvector this migration succeeds and RAG uses full-text retrieval only.
-- rag_chunk_embeddings is deliberately outside schema.prisma (its type exists only with the extension);
-- it is read and written by raw SQL in lib/rag and excluded by name from the drift test.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE TABLE IF NOT EXISTS "rag_chunk_embeddings" (
      "chunk_id" TEXT NOT NULL,
      "model" TEXT NOT NULL,
      "embedding" vector(1536) NOT NULL,
      CONSTRAINT "rag_chunk_embeddings_pkey" PRIMARY KEY ("chunk_id"),
      CONSTRAINT "rag_chunk_embeddings_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "rag_chunks"("id") ON DELETE CASCADE
    );
    CREATE INDEX IF NOT EXISTS "rag_chunk_embeddings_hnsw_idx" ON "rag_chunk_embeddings" USING hnsw ("embedding" vector_cosine_ops);
  ELSE
    RAISE NOTICE 'vector extension not available: retrieval uses full-text search only';
  END IF;
END $$;
