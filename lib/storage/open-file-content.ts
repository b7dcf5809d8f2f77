import type { Readable } from "node:stream";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { isFileId } from "./file-record";
import { objectStore, type StorageKind } from "./object-store";
import { checkLocalFileToken } from "./signed-url";

export interface FileContent {
  stream: Readable;
  size: number;
  contentType: string;
  originalName: string;
}

/**
 * Opens a file for a signed local address: the token (not a session) authorises it. A bad or expired
 * token is `forbidden` before anything is looked up; a deleted file is `not_found`.
 */
export async function openFileContent(fileId: string, expires: string | null, token: string | null): Promise<FileContent> {
  const check = isFileId(fileId) ? checkLocalFileToken(fileId, expires, token) : "invalid";
  if (check === "expired") throw new AppError("forbidden", "This file address has expired; request the file again for a new one");
  if (check === "invalid") throw new AppError("forbidden", "Invalid file address signature");
  const prisma = await db();
  const file = await prisma.file.findUnique({ where: { id: fileId } });
  if (!file) throw new AppError("not_found", "File not found");
  const stream = await (await objectStore(file.storage as StorageKind)).get(file.storageKey);
  return { stream, size: file.size, contentType: file.contentType, originalName: file.originalName };
}
