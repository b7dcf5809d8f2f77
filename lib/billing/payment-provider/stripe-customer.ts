import { db } from "@/lib/db/client";

/** The account's Stripe customer: the newest one that paid (a pack, an invoice), else its subscription's. */
export async function stripeCustomerOf(accountId: string): Promise<string | null> {
  const prisma = await db();
  const paid = await prisma.payment.findFirst({
    where: { userId: accountId, provider: "stripe", providerCustomerId: { not: null } },
    orderBy: { paidAt: "desc" },
    select: { providerCustomerId: true },
  });
  if (paid?.providerCustomerId) return paid.providerCustomerId;
  const sub = await prisma.subscription.findFirst({
    where: { userId: accountId, provider: "stripe", providerCustomerId: { not: null } },
    orderBy: { createdAt: "desc" },
    select: { providerCustomerId: true },
  });
  return sub?.providerCustomerId ?? null;
}
