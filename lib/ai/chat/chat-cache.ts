import { createHash } from "node:crypto";
import { db } from "@/lib/db/client";
import type { ChatRequest, ChatResult } from "../providers/provider";

/**
 * The per-user chat answer cache (table ai_response_cache): identical requests (same provider, model,
 * messages, temperature and maxTokens) of the same user within cacheTTL seconds are answered from
 * here without an upstream call.
 */
export function chatCacheKey(userId: string, providerName: string, req: ChatRequest): string {
  const canonical = JSON.stringify([providerName, req.model ?? null, req.messages, req.temperature ?? null, req.maxTokens ?? null]);
  return `chat:${userId}:${createHash("sha256").update(canonical).digest("hex")}`;
}

export async function readCachedChat(userId: string, key: string): Promise<ChatResult | null> {
  const prisma = await db();
  const row = await prisma.aiResponseCache.findFirst({ where: { key, userId, expiresAt: { gt: new Date() } } });
  return row ? (row.response as unknown as ChatResult) : null;
}

export async function writeCachedChat(userId: string, key: string, result: ChatResult, ttlSeconds: number): Promise<void> {
  const prisma = await db();
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  const response = { text: result.text, model: result.model, usage: { ...result.usage } } as Record<string, unknown> as object;
  await prisma.aiResponseCache.upsert({
    where: { key },
    create: { key, userId, response, expiresAt },
    update: { response, expiresAt },
  });
  // Keep the table small: this user's expired entries go on every write.
  await prisma.aiResponseCache.deleteMany({ where: { userId, expiresAt: { lte: new Date() } } });
}
