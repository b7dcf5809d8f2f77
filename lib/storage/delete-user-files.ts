import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { objectStore, type StorageKind } from "./object-store";

/**
 * Deletes every stored object of a user (a user-deletion step, run before the database cascade removes
 * the records). A failing object is logged and skipped so the rest still go.
 */
export async function deleteUserFiles(userId: string): Promise<{ deleted: number; failed: number }> {
  const prisma = await db();
  const files = await prisma.file.findMany({ where: { userId } });
  let deleted = 0;
  let failed = 0;
  for (const file of files) {
    try {
      await (await objectStore(file.storage as StorageKind)).delete(file.storageKey);
      deleted++;
    } catch (error) {
      failed++;
      log.error("stored object delete failed", { userId, fileId: file.id, error });
    }
  }
  return { deleted, failed };
}
