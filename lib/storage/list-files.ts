import { db } from "@/lib/db/client";
import { toFileRecord, type FileRecord } from "./file-record";

export interface FilePage {
  files: FileRecord[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

/** The owner's files, newest first, each with a fresh signed address. */
export async function listFiles(userId: string, limit: number, offset: number, baseUrl: string): Promise<FilePage> {
  const prisma = await db();
  const [rows, total] = await Promise.all([
    prisma.file.findMany({ where: { userId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit, skip: offset }),
    prisma.file.count({ where: { userId } }),
  ]);
  const files = await Promise.all(rows.map((row) => toFileRecord(row, baseUrl)));
  return { files, pagination: { total, limit, offset, hasMore: offset + rows.length < total } };
}
