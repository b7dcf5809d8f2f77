import { createHash, randomUUID } from "node:crypto";
import { aiSettings } from "@/lib/ai/settings";
import { db } from "@/lib/db/client";
import { chunkTextAsync, CHUNKER_VERSION, type Chunk } from "./chunk-text";
import { chunksMissingEmbeddings, embedChunks, embeddingProvider } from "./embed-chunks";

export interface DocumentInput {
  /** "knowledge:<relative path>" or "file:<file id>". */
  key: string;
  /** null = shared knowledge; otherwise the owner (private scope). */
  userId: string | null;
  fileId?: string | null;
  source: "knowledge" | "upload";
  path?: string | null;
  title: string;
  text: string;
  /** Read `#` lines as Markdown headings (default true). */
  markdown?: boolean;
}

export interface IndexOutcome {
  documentId: string;
  status: "indexed" | "unchanged";
  chunks: number;
  embedded: number;
}

const INSERT_BATCH = 100;

/** Hash of everything that decides the chunks: unchanged hash = nothing to re-index. */
export function contentHash(input: Pick<DocumentInput, "title" | "text" | "markdown">): string {
  return createHash("sha256")
    .update(`${CHUNKER_VERSION}\u0000${input.markdown === false ? "plain" : "md"}\u0000${input.title}\u0000${input.text}`)
    .digest("hex");
}

/**
 * Indexes one document incrementally: an unchanged content hash only backfills missing embeddings;
 * a new or changed document has its chunks replaced in one transaction (tsvector written with
 * to_tsvector('english', content)), then its chunks are embedded where pgvector and an embeddings
 * provider exist.
 */
export async function indexDocument(input: DocumentInput, options: { signal?: AbortSignal } = {}): Promise<IndexOutcome> {
  const prisma = await db();
  const hash = contentHash(input);
  const existing = await prisma.ragDocument.findUnique({ where: { key: input.key }, select: { id: true, contentHash: true } });
  if (existing && existing.contentHash === hash) {
    let embedded = 0;
    if (await embeddingProvider(prisma)) {
      const missing = await chunksMissingEmbeddings(prisma, existing.id, aiSettings().embeddingModel);
      embedded = await embedChunks(prisma, missing, options.signal, input.source === "upload" ? input.userId : null);
    }
    const chunks = await prisma.ragChunk.count({ where: { documentId: existing.id } });
    return { documentId: existing.id, status: "unchanged", chunks, embedded };
  }

  const chunks: Chunk[] = await chunkTextAsync(input.text, { markdown: input.markdown ?? true });
  const rows = chunks.map((chunk, ordinal) => ({ id: randomUUID(), ordinal, ...chunk }));
  const documentId = await prisma.$transaction(async (tx) => {
    const data = {
      userId: input.userId,
      fileId: input.fileId ?? null,
      source: input.source,
      path: input.path ?? null,
      title: input.title,
      contentHash: hash,
    };
    const doc = await tx.ragDocument.upsert({
      where: { key: input.key },
      create: { key: input.key, ...data },
      update: data,
      select: { id: true },
    });
    await tx.ragChunk.deleteMany({ where: { documentId: doc.id } });
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      const params: unknown[] = [];
      const values = rows.slice(i, i + INSERT_BATCH).map((row) => {
        params.push(row.id, doc.id, input.userId, row.ordinal, row.content, row.tokens);
        const n = params.length;
        return `($${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}::int, $${n - 1}, $${n}::int, to_tsvector('english', $${n - 1}))`;
      });
      await tx.$executeRawUnsafe(
        `INSERT INTO rag_chunks (id, document_id, user_id, ordinal, content, tokens, search) VALUES ${values.join(", ")}`,
        ...params,
      );
    }
    return doc.id;
  });
  const embedded = await embedChunks(prisma, rows, options.signal, input.source === "upload" ? input.userId : null);
  return { documentId, status: "indexed", chunks: rows.length, embedded };
}

/** Removes a document (its chunks and vectors cascade). Returns whether one existed. */
export async function removeDocument(key: string): Promise<boolean> {
  const prisma = await db();
  const { count } = await prisma.ragDocument.deleteMany({ where: { key } });
  return count > 0;
}
