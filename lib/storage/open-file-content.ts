import type { Readable } from "node:stream";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { parseByteRange, type ByteRange } from "./byte-range";
import { isFileId } from "./file-record";
import { objectStore, type StorageKind } from "./object-store";
import { checkLocalFileToken } from "./signed-url";

export interface FileContent {
  stream: Readable;
  /** The whole file's size. */
  size: number;
  /** The byte range served, when the request asked for one (206). */
  range: ByteRange | null;
  contentType: string;
  originalName: string;
}

/**
 * Opens a file for a signed local address: the token (not a session) authorises it. A bad or expired
 * token is `forbidden` before anything is looked up; a deleted file is `not_found`. A `Range` header
 * asks for one byte range (audio and video players seek with it).
 */
export async function openFileContent(
  fileId: string,
  expires: string | null,
  token: string | null,
  rangeHeader: string | null = null,
): Promise<FileContent> {
  const check = isFileId(fileId) ? checkLocalFileToken(fileId, expires, token) : "invalid";
  if (check === "expired") throw new AppError("forbidden", "This file address has expired; request the file again for a new one");
  if (check === "invalid") throw new AppError("forbidden", "Invalid file address signature");
  const prisma = await db();
  const file = await prisma.file.findUnique({ where: { id: fileId } });
  if (!file) throw new AppError("not_found", "File not found");
  const range = parseByteRange(rangeHeader, file.size);
  const stream = await (await objectStore(file.storage as StorageKind)).get(file.storageKey, range ?? undefined);
  return { stream, size: file.size, range, contentType: file.contentType, originalName: file.originalName };
}
