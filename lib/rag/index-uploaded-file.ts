import type { File } from "@/lib/generated/prisma/client";
import { db } from "@/lib/db/client";
import { readStoredObject } from "@/lib/storage/read-stored-object";
import type { StorageKind } from "@/lib/storage/object-store";
import { extractText, isIndexableType, isMarkdownLike } from "./extract-text";
import { indexDocument, type IndexOutcome } from "./index-document";

/** Largest upload read for indexing; bigger text-like files are stored but not searchable. */
export const MAX_INDEXED_BYTES = 20 * 1024 * 1024;

export const fileDocumentKey = (fileId: string) => `file:${fileId}`;

/**
 * Indexes a text-like upload (plain text, Markdown, CSV, JSON, PDF) into its owner's private scope
 * (file hook after the file is stored). Other types are ignored (null).
 */
export async function indexUploadedFile(file: File): Promise<IndexOutcome | null> {
  if (!isIndexableType(file.contentType) || file.size > MAX_INDEXED_BYTES) return null;
  const bytes = await readStoredObject(file.storageKey, MAX_INDEXED_BYTES, file.storage as StorageKind);
  const text = await extractText(bytes, file.contentType);
  if (text === null) return null;
  return indexDocument({
    key: fileDocumentKey(file.id),
    userId: file.userId,
    fileId: file.id,
    source: "upload",
    path: null,
    title: file.originalName.slice(0, 200),
    text,
    markdown: isMarkdownLike(file.contentType),
  });
}

/** Removes an upload's document, chunks and vectors from the index (file hook before deletion). */
export async function removeUploadedFileFromIndex(file: Pick<File, "id" | "userId">): Promise<number> {
  const prisma = await db();
  const { count } = await prisma.ragDocument.deleteMany({ where: { fileId: file.id, userId: file.userId } });
  return count;
}
