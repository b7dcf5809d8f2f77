import type { File } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { readStoredObject } from "@/lib/storage/read-stored-object";
import type { StorageKind } from "@/lib/storage/object-store";
import { extractText, isIndexableType, isMarkdownLike } from "./extract-text";
import { indexDocument, type IndexOutcome } from "./index-document";

/** Largest upload read for indexing; bigger text-like files are stored but not searchable. */
export const MAX_INDEXED_BYTES = 20 * 1024 * 1024;

export const fileDocumentKey = (fileId: string) => `file:${fileId}`;

/**
 * Makes a stored upload searchable by its owner: text-like files (plain text, Markdown, CSV, JSON,
 * PDF) are indexed into the owner's private scope; other types are ignored (null). Never throws: a
 * failure is logged and the upload stands, unsearchable. Deleting the file's record removes its index
 * (rag_documents.file_id cascades).
 */
export async function indexUploadedFile(file: File): Promise<IndexOutcome | null> {
  try {
    return await indexStoredFile(file);
  } catch (error) {
    log.error("uploaded file not indexed", { fileId: file.id, userId: file.userId, error });
    return null;
  }
}

async function indexStoredFile(file: File): Promise<IndexOutcome | null> {
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
