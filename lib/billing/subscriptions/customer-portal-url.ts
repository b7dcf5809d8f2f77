import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { paymentProvider } from "../payment-provider/payment-provider";
import { StripePaymentProvider } from "../payment-provider/stripe-client";
import { stripeCustomerOf } from "../payment-provider/stripe-customer";
import { requireUser } from "@/lib/users/require-user";

/**
 * The billing portal address of the user's newest subscription (any status, so past customers still
 * reach their invoices), valid 24 hours: Lemon Squeezy's signed customer portal URL, or the
 * simulator's signed portal page. With Stripe, an account that only bought packs reaches its
 * customer's portal too (its saved card, for auto-recharge).
 */
export async function customerPortalUrl(input: { userId: string; requestUrl: string }): Promise<string> {
  await requireUser(input.userId);
  const prisma = await db();
  const sub = await prisma.subscription.findFirst({ where: { userId: input.userId }, orderBy: { createdAt: "desc" } });
  const provider = paymentProvider(input.requestUrl);
  if (!sub && provider instanceof StripePaymentProvider) {
    const customer = await stripeCustomerOf(input.userId);
    if (customer) return provider.customerPortalUrlOf(customer);
  }
  if (!sub) throw new AppError("not_found", "No subscription: the billing portal is available after a purchase");
  return provider.customerPortalUrl(sub.providerSubscriptionId);
}
