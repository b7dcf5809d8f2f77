import { AppError } from "@/lib/errors";

/**
 * Keyset pagination for the operator lists (newest first): the cursor names the last row shown by its
 * time and id, so the next page is one index range scan whatever the depth (no OFFSET).
 */
export interface Cursor {
  at: Date;
  id: string;
}

export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.toISOString()}|${id}`, "utf8").toString("base64url");
}

export function decodeCursor(cursor: string | undefined): Cursor | null {
  if (!cursor) return null;
  const [iso, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const at = new Date(iso ?? "");
  if (!id || Number.isNaN(at.getTime())) throw new AppError("validation_failed", "Invalid query: cursor: not a cursor of this list");
  return { at, id };
}

/** The rows after the cursor in (time desc, id desc) order, as a Prisma where clause on `field`. */
export function after<F extends string>(field: F, cursor: Cursor | null): Record<string, unknown> {
  if (!cursor) return {};
  return { OR: [{ [field]: { lt: cursor.at } }, { [field]: cursor.at, id: { lt: cursor.id } }] };
}

/** One page: `limit` rows, and the cursor of the next page when there is one (the query fetched limit + 1). */
export function page<T extends { id: string }>(
  rows: T[],
  limit: number,
  timeOf: (row: T) => Date,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(timeOf(last), last.id) : null };
}
