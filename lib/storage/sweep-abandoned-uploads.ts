import { log } from "@/lib/log";
import { activeStorageKind, objectStore, type StorageKind } from "./object-store";

/** An upload still unfinished after this long was abandoned (50 MB at 15 kB/s takes under an hour). */
export const ABANDONED_UPLOAD_AFTER_MS = 60 * 60 * 1000;

/**
 * Removes what killed or crashed uploads left behind: `.partial` files of the local store and open
 * S3 multipart uploads. Run at server start and by the daily check-trials cron. At start-up every
 * local partial goes (local storage serves one process, and this one has not accepted an upload
 * yet); otherwise only uploads started more than ABANDONED_UPLOAD_AFTER_MS ago, since other instances
 * may be uploading right now.
 */
export async function sweepAbandonedUploads(options: { atStartup?: boolean; now?: Date } = {}): Promise<{ removed: number }> {
  const now = options.now ?? new Date();
  const stale = new Date(now.getTime() - ABANDONED_UPLOAD_AFTER_MS);
  const kinds: StorageKind[] = activeStorageKind() === "s3" ? ["local", "s3"] : ["local"];
  let removed = 0;
  for (const kind of kinds) {
    try {
      const store = await objectStore(kind);
      const result = await store.sweepAbandonedUploads(kind === "local" && options.atStartup ? now : stale);
      removed += result.removed;
      if (result.removed > 0) log.info("abandoned uploads removed", { store: kind, removed: result.removed });
    } catch (error) {
      // Not fatal: an S3-compatible service without ListMultipartUploads still has its lifecycle rule.
      log.warn("could not sweep abandoned uploads", { store: kind, error: (error as Error).message });
    }
  }
  return { removed };
}
