import type { File } from "@/lib/generated/prisma/client";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { isFileId } from "./file-record";

/** The owner's file; another user's id, a malformed id and a missing id all throw the same not_found. */
export async function findOwnedFile(userId: string, fileId: string): Promise<File> {
  if (!isFileId(fileId)) throw new AppError("not_found", "File not found");
  const prisma = await db();
  const file = await prisma.file.findFirst({ where: { id: fileId, userId } });
  if (!file) throw new AppError("not_found", "File not found");
  return file;
}
