import { db } from "@/lib/db/client";
import { csvField as field } from "./csv-field";

/**
 * The columns of the CSV export: the ledger row, then the AI usage it recorded, then who and what the
 * call was for (the API key, the organisation member, X-Request-Tags joined by spaces, OpenAI's
 * `user` and the request's `metadata` as JSON); empty when none. New columns go at the end.
 */
const COLUMNS = [
  "id",
  "createdAt",
  "type",
  "operation",
  "amount",
  "balanceAfter",
  "model",
  "promptTokens",
  "cachedPromptTokens",
  "completionTokens",
  "images",
  "audioSeconds",
  "costUsd",
  "credits",
  "reason",
  "apiKeyId",
  "memberId",
  "tags",
  "endUser",
  "requestMetadata",
] as const;

const PAGE = 1000;

function line(row: {
  id: string;
  createdAt: Date;
  type: string;
  operation: string;
  amount: number;
  balanceAfter: number;
  metadata: unknown;
}): string {
  const m =
    row.metadata && typeof row.metadata === "object" && !Array.isArray(row.metadata) ? (row.metadata as Record<string, unknown>) : {};
  const cost = typeof m.costMicros === "number" ? (m.costMicros / 1e6).toFixed(6) : undefined;
  const values: Record<(typeof COLUMNS)[number], unknown> = {
    id: row.id,
    createdAt: row.createdAt.toISOString(),
    type: row.type,
    operation: row.operation,
    amount: row.amount,
    balanceAfter: row.balanceAfter,
    model: m.model,
    promptTokens: m.promptTokens,
    cachedPromptTokens: m.cachedPromptTokens,
    completionTokens: m.completionTokens,
    images: m.images,
    audioSeconds: m.audioSeconds,
    costUsd: cost,
    credits: m.credits,
    reason: m.reason,
    apiKeyId: m.apiKeyId,
    memberId: m.memberId,
    tags: Array.isArray(m.tags) ? m.tags.join(" ") : undefined,
    endUser: m.endUser,
    requestMetadata: m.requestMetadata && typeof m.requestMetadata === "object" ? JSON.stringify(m.requestMetadata) : undefined,
  };
  return `${COLUMNS.map((c) => field(values[c])).join(",")}\r\n`;
}

/**
 * The user's ledger of one calendar year (UTC) as CSV (RFC 4180, CRLF lines, a header row), newest
 * first, streamed in pages so a busy year never sits in memory whole.
 */
export function exportCreditHistory(userId: string, year: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const where = { userId, createdAt: { gte: new Date(Date.UTC(year, 0, 1)), lt: new Date(Date.UTC(year + 1, 0, 1)) } };
  let cursor: { id: string } | undefined;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${COLUMNS.join(",")}\r\n`));
        return;
      }
      const prisma = await db();
      const rows = await prisma.creditTransaction.findMany({
        where,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: PAGE,
        ...(cursor ? { cursor, skip: 1 } : {}),
        select: { id: true, amount: true, balanceAfter: true, type: true, operation: true, metadata: true, createdAt: true },
      });
      if (rows.length > 0) controller.enqueue(encoder.encode(rows.map(line).join("")));
      if (rows.length < PAGE) controller.close();
      else cursor = { id: rows[rows.length - 1].id };
    },
  });
}
