import type { ApiKey } from "@/lib/generated/prisma/client";
import type { ApiKeyView } from "./schemas";

/** When a budget window that started at `start` ends (UTC): the next day or month; never for "total". */
export function budgetResetsAt(period: string | null, start: Date | null, now = new Date()): Date | null {
  if (period !== "day" && period !== "month") return null;
  const from = start ?? now;
  return period === "day"
    ? new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + 1))
    : new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
}

/** Whether the budget window recorded on the key is still the current one. */
function currentWindow(k: ApiKey, now: Date): boolean {
  const resets = budgetResetsAt(k.budgetPeriod, k.windowStart, now);
  return k.windowStart !== null && (resets === null || resets > now);
}

/** A key as its owner and operators see it; `spent`: what its calls were charged in all (lib/api-keys/key-spend.ts). */
export function toKeyView(k: ApiKey, spent: number, now = new Date()): ApiKeyView {
  const status = k.revokedAt ? "revoked" : k.expiresAt && k.expiresAt <= now ? "expired" : "active";
  return {
    id: k.id,
    name: k.name,
    display: `${k.prefix}…${k.lastFour}`,
    models: k.models,
    kinds: k.kinds,
    budget:
      k.budgetCredits !== null && k.budgetPeriod
        ? {
            credits: k.budgetCredits,
            period: k.budgetPeriod,
            spent: currentWindow(k, now) ? k.windowSpent : 0,
            resetsAt: budgetResetsAt(k.budgetPeriod, currentWindow(k, now) ? k.windowStart : null, now)?.toISOString() ?? null,
          }
        : null,
    alertThresholds: k.alertThresholds,
    rpm: k.rpm,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    status,
    service: k.service,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    totalSpent: spent,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
  };
}
