import { isUuid } from "@/lib/errors";
import type { File } from "@/lib/generated/prisma/client";
import { env } from "@/lib/config/env";
import { objectStore, type StorageKind } from "./object-store";

/** SPEC §2 file record. `url` is a short-lived signed address (FILE_URL_TTL_SECONDS). */
export interface FileRecord {
  id: string;
  url: string;
  originalName: string;
  size: number;
  contentType: string;
  createdAt: string;
}

export async function toFileRecord(file: File, baseUrl: string): Promise<FileRecord> {
  const store = await objectStore(file.storage as StorageKind);
  const url = await store.signedUrl(file.storageKey, {
    fileId: file.id,
    originalName: file.originalName,
    contentType: file.contentType,
    ttlSeconds: env().FILE_URL_TTL_SECONDS,
    baseUrl,
  });
  return {
    id: file.id,
    url,
    originalName: file.originalName,
    size: file.size,
    contentType: file.contentType,
    createdAt: file.createdAt.toISOString(),
  };
}

/** File ids are UUIDs; anything else can only be "not found" (same answer as another user's id). */
export const isFileId = isUuid;
