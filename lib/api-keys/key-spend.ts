import { db } from "@/lib/db/client";

/**
 * What each key's calls were charged in all: the sum of its settled charges (the charge rows name
 * their key), read when keys are listed rather than counted on every call.
 */
export async function keySpend(keyIds: string[]): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const prisma = await db();
  const rows = await prisma.creditOperation.groupBy({
    by: ["apiKeyId"],
    where: { apiKeyId: { in: keyIds }, kind: "charge", status: "settled" },
    _sum: { amount: true },
  });
  return new Map(rows.map((r) => [r.apiKeyId as string, r._sum.amount ?? 0]));
}

const TOUCH_EVERY_MS = 60_000;
const touched = new Map<string, number>();

/** Records that a key was used: at most once a minute per key and instance (one small write). */
export async function touchKey(keyId: string, nowMs = Date.now()): Promise<void> {
  const last = touched.get(keyId);
  if (last !== undefined && nowMs - last < TOUCH_EVERY_MS) return;
  if (touched.size >= 10_000) touched.clear();
  touched.set(keyId, nowMs);
  const prisma = await db();
  await prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(nowMs) }, select: { id: true } }).catch(() => undefined);
}
