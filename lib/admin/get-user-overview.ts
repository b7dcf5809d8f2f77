import { memberCapsOf } from "@/lib/organisations/views";
import { receiptOf } from "@/lib/billing/receipts/list-payments";
import type { z } from "zod";
import { db } from "@/lib/db/client";
import { notFound, requireUuids } from "@/lib/errors";
import { keySpend } from "@/lib/api-keys/key-spend";
import { toKeyView } from "@/lib/api-keys/key-view";
import { toDeliveryRow } from "./delivery-row";
import type { userOverviewResponse } from "./schemas";

const iso = (d: Date | null) => d?.toISOString() ?? null;

/**
 * Everything an operator needs to answer "I paid and got no credits": the user, their subscriptions
 * with provider ids and state history, both credit buckets (bonus purchases with expiry), the last
 * 50 ledger rows, file and RAG counts, the lock, and the webhook deliveries that name them (by user id
 * or buyer email), newest first.
 */
export async function getUserOverview(userId: string): Promise<z.infer<typeof userOverviewResponse>> {
  requireUuids("User", userId);
  const prisma = await db();
  const user = await prisma.user.findUnique({
    where: { id: userId },
    include: {
      creditBalance: true,
      accounts: { orderBy: { createdAt: "asc" } },
      apiKeys: { orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 100 },
      subscriptions: { orderBy: { createdAt: "desc" }, include: { events: { orderBy: { recordedAt: "asc" }, take: 100 } } },
      bonusPurchases: { orderBy: { expiresAt: "asc" }, take: 100 },
      payments: { orderBy: [{ paidAt: "desc" }, { id: "desc" }], take: 100 },
      creditTransactions: { orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 50 },
      _count: { select: { files: true, ragDocuments: true, ragConversations: true, emailLogs: true } },
      organisation: { include: { members: { include: { user: { select: { email: true } } }, orderBy: { createdAt: "asc" } } } },
    },
  });
  if (!user) throw notFound("User");
  const deliveries = await prisma.webhookDelivery.findMany({
    where: {
      OR: [
        { userRef: user.id },
        ...(user.externalId ? [{ userRef: user.externalId }] : []),
        ...(user.email ? [{ userEmail: user.email }] : []),
      ],
    },
    orderBy: [{ receivedAt: "desc" }, { id: "desc" }],
    take: 20,
  });
  const keysSpent = await keySpend(user.apiKeys.map((k) => k.id));
  const now = new Date();
  const bonusAvailable = user.bonusPurchases.filter((p) => p.remaining > 0 && p.expiresAt > now).reduce((sum, p) => sum + p.remaining, 0);
  return {
    user: {
      id: user.id,
      kind: user.kind === "organisation" ? ("organisation" as const) : ("person" as const),
      email: user.email,
      name: user.name,
      externalId: user.externalId,
      tier: user.tier,
      billingPeriod: user.billingPeriod,
      downgradeCount: user.downgradeCount,
      hasUsedTrial: user.hasUsedTrial,
      bonusCreditsAutoUse: user.bonusCreditsAutoUse,
      lockedAt: iso(user.lockedAt),
      lockReason: user.lockReason,
      createdAt: user.createdAt.toISOString(),
    },
    organisation: user.organisation
      ? {
          name: user.organisation.name,
          slug: user.organisation.slug,
          members: user.organisation.members.map((m) => ({ userId: m.userId, email: m.user.email, role: m.role, ...memberCapsOf(m) })),
        }
      : null,
    identities: user.accounts.map((a) => ({
      id: a.id,
      provider: a.provider,
      providerAccountId: a.providerAccountId,
      createdAt: a.createdAt.toISOString(),
    })),
    apiKeys: user.apiKeys.map((k) => toKeyView(k, keysSpent.get(k.id) ?? 0, now)),
    subscriptions: user.subscriptions.map((s) => ({
      id: s.id,
      provider: s.provider,
      providerSubscriptionId: s.providerSubscriptionId,
      providerCustomerId: s.providerCustomerId,
      status: s.status,
      tier: s.tier,
      billingPeriod: s.billingPeriod,
      variantId: s.variantId,
      currentPeriodEnd: iso(s.currentPeriodEnd),
      trialEndsAt: iso(s.trialEndsAt),
      endsAt: iso(s.endsAt),
      paymentFailedAt: iso(s.paymentFailedAt),
      createdAt: s.createdAt.toISOString(),
      history: s.events.map((e) => ({
        event: e.event,
        source: e.source,
        statusFrom: e.statusFrom,
        statusTo: e.statusTo,
        tier: e.tier,
        variantId: e.variantId,
        occurredAt: e.occurredAt.toISOString(),
        recordedAt: e.recordedAt.toISOString(),
      })),
    })),
    credits: {
      subscription: {
        balance: user.creditBalance?.subscriptionCredits ?? 0,
        monthlyAllocation: user.creditBalance?.monthlyAllocation ?? 0,
        resetAt: iso(user.creditBalance?.resetAt ?? null),
        cycle: user.creditBalance?.cycle ?? null,
      },
      bonus: user.bonusPurchases.map((p) => ({
        id: p.id,
        orderId: p.orderId,
        variantId: p.variantId,
        credits: p.credits,
        remaining: p.remaining,
        expiresAt: p.expiresAt.toISOString(),
        expiredAt: iso(p.expiredAt),
        createdAt: p.createdAt.toISOString(),
      })),
      balances: { subscription: user.creditBalance?.subscriptionCredits ?? 0, bonus: bonusAvailable },
      debt: user.creditBalance?.debt ?? 0,
    },
    payments: user.payments.map((p) => ({
      ...receiptOf(p),
      provider: p.provider,
      providerPaymentId: p.providerPaymentId,
      receiptUrl: p.receiptUrl,
    })),
    ledger: user.creditTransactions.map((t) => ({
      id: t.id,
      amount: t.amount,
      balanceAfter: t.balanceAfter,
      type: t.type,
      operation: t.operation,
      metadata: t.metadata && typeof t.metadata === "object" && !Array.isArray(t.metadata) ? (t.metadata as Record<string, unknown>) : null,
      createdAt: t.createdAt.toISOString(),
    })),
    counts: {
      files: user._count.files,
      ragDocuments: user._count.ragDocuments,
      ragConversations: user._count.ragConversations,
      emails: user._count.emailLogs,
    },
    deliveries: deliveries.map(toDeliveryRow),
  };
}
