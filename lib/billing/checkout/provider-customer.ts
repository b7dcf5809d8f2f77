import { db } from "@/lib/db/client";
import { paymentProviderName } from "../payment-provider/payment-provider-name";

/**
 * The account's customer at the current provider (from its newest subscription there), so a second
 * checkout keeps one customer with one set of saved cards and one portal. Null for a first purchase.
 */
export async function providerCustomerOf(userId: string): Promise<string | null> {
  const prisma = await db();
  const row = await prisma.subscription.findFirst({
    where: { userId, provider: paymentProviderName(), providerCustomerId: { not: null } },
    orderBy: { createdAt: "desc" },
    select: { providerCustomerId: true },
  });
  return row?.providerCustomerId ?? null;
}
