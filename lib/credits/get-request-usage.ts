import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

/** A charge id as the API shows it: the charge's UUID, or a /v1 chat completion's id (chatcmpl- and its hex). */
const CHARGE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMPLETION_ID = /^chatcmpl-([0-9a-f]{32})$/i;

function chargeIdOf(id: string): string | null {
  if (CHARGE_UUID.test(id)) return id.toLowerCase();
  const hex = COMPLETION_ID.exec(id)?.[1]?.toLowerCase();
  return hex ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : null;
}

const text = (v: unknown) => (typeof v === "string" ? v : null);
const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);

/**
 * One AI call's charge, looked up by its id (GET /api/usage/requests/{id}): what it cost in credits
 * and upstream, its tokens, and who and what it was for. Only the account's own charges (a member who
 * is not an admin: their own); anything else is a 404, as an unknown id is.
 */
export async function getRequestUsage(input: { accountId: string; memberId?: string | null; id: string }) {
  const chargeId = chargeIdOf(input.id);
  const prisma = await db();
  const op = chargeId
    ? await prisma.creditOperation.findFirst({
        where: { id: chargeId, userId: input.accountId, kind: "charge", ...(input.memberId ? { memberId: input.memberId } : {}) },
      })
    : null;
  if (!op) throw new AppError("not_found", "No charge with this id in this account");
  const details = (op.details && typeof op.details === "object" && !Array.isArray(op.details) ? op.details : {}) as Record<string, unknown>;
  const m = (details.metadata && typeof details.metadata === "object" ? details.metadata : {}) as Record<string, unknown>;
  return {
    id: op.id,
    completionId: `chatcmpl-${op.id.replaceAll("-", "")}`,
    createdAt: op.createdAt.toISOString(),
    operation: text(details.operation),
    status: op.status as "reserved" | "settled" | "refunded",
    model: op.model ?? text(m.model),
    pricing: text(m.pricing),
    credits: op.status === "refunded" ? 0 : op.amount,
    costUsd: op.costMicros === null ? null : Number(op.costMicros) / 1e6,
    promptTokens: count(m.promptTokens),
    cachedPromptTokens: count(m.cachedPromptTokens),
    completionTokens: count(m.completionTokens),
    apiKeyId: op.apiKeyId,
    memberId: op.memberId,
    endUser: text(m.endUser),
    tags: Array.isArray(m.tags) ? m.tags.filter((t): t is string => typeof t === "string") : [],
    requestMetadata: (m.requestMetadata && typeof m.requestMetadata === "object" ? m.requestMetadata : null) as Record<
      string,
      string
    > | null,
  };
}
