import type { z } from "zod";
import { LIVE_STATUSES } from "@/lib/billing/subscriptions/current-subscription";
import { db } from "@/lib/db/client";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { after, decodeCursor, page } from "./cursor";
import { heldBonusByAccount } from "./held-bonus";
import type { usersListResponse } from "./schemas";

/**
 * Finds users for an operator, newest first: an email prefix, a user id, the identity provider's id,
 * or a Lemon Squeezy customer or subscription id (the ids a support ticket or a provider dashboard
 * shows). Without `q`, every user. Each row carries the tier, the current subscription's status and
 * both credit balances.
 */
export async function searchUsers(input: { q?: string; cursor?: string; limit: number }): Promise<z.infer<typeof usersListResponse>> {
  const prisma = await db();
  const q = input.q?.trim() ?? "";
  const match = q
    ? {
        OR: [
          { email: { startsWith: normalizeEmail(q) } },
          { id: q },
          { externalId: q },
          { subscriptions: { some: { OR: [{ providerSubscriptionId: q }, { providerCustomerId: q }] } } },
        ],
      }
    : {};
  const rows = await prisma.user.findMany({
    where: { AND: [{ kind: "person" }, match, after("createdAt", decodeCursor(input.cursor))] },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    select: {
      id: true,
      email: true,
      name: true,
      tier: true,
      lockedAt: true,
      createdAt: true,
      creditBalance: { select: { subscriptionCredits: true } },
      subscriptions: { where: { status: { in: [...LIVE_STATUSES] } }, orderBy: { createdAt: "desc" }, take: 1, select: { status: true } },
    },
  });
  const { items, nextCursor } = page(rows, input.limit, (r) => r.createdAt);
  const bonusOf = await heldBonusByAccount(items.map((u) => u.id));
  return {
    users: items.map((u) => ({
      id: u.id,
      email: u.email,
      name: u.name,
      tier: u.tier,
      subscriptionStatus: u.subscriptions[0]?.status ?? null,
      balances: { subscription: u.creditBalance?.subscriptionCredits ?? 0, bonus: bonusOf.get(u.id) ?? 0 },
      locked: u.lockedAt !== null,
      createdAt: u.createdAt.toISOString(),
    })),
    nextCursor,
  };
}
