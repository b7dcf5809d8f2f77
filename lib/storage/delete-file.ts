import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { findOwnedFile } from "./get-file";
import { objectStore, type StorageKind } from "./object-store";

/**
 * Deletes the owner's file: the stored object first (if that fails nothing changed and the caller may
 * retry), then the record, whose deletion cascades to its search index (rag_documents.file_id). Its
 * signed addresses stop working: the object is gone, and the local download route needs the record.
 */
export async function deleteFile(userId: string, fileId: string): Promise<{ success: true; message: string }> {
  const file = await findOwnedFile(userId, fileId);
  await (await objectStore(file.storage as StorageKind)).delete(file.storageKey);
  const prisma = await db();
  const { count } = await prisma.file.deleteMany({ where: { id: file.id, userId } });
  if (count === 0) throw new AppError("not_found", "File not found");
  log.info("file deleted", { userId, fileId });
  return { success: true, message: "File deleted" };
}
