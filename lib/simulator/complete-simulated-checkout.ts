import { addPeriod, readSimulatedCheckout } from "@/lib/billing/payment-provider/checkout-simulator";
import type { SubscriptionAttributes } from "@/lib/billing/payment-provider/provider-types";
import { flags } from "@/lib/config/flags";
import { pricingCatalog } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { deliverSimulatedEvent } from "./deliver-simulated-event";

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * "Complete purchase": delivers subscription_created + subscription_payment_success for a plan, or
 * order_created for a bonus package, then answers where to send the buyer. Ids derive from the
 * checkout id, so completing the same checkout twice grants nothing twice.
 */
export async function completeSimulatedCheckout(
  id: string,
  input: { email?: string | null } = {},
): Promise<{ redirectUrl: string; kind: "plan" | "bonus" }> {
  const read = readSimulatedCheckout(id);
  if (!read) throw new AppError("not_found", "Checkout not found or expired");
  const { checkout, match } = read;
  const prisma = await db();
  const user = checkout.userId ? await prisma.user.findUnique({ where: { id: checkout.userId } }) : null;
  const email = (checkout.email || input.email || user?.email || "").trim().toLowerCase() || null;
  if (!user && !email) throw new AppError("validation_failed", "An email address is required to complete the purchase");
  if (email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new AppError("validation_failed", "Invalid email address");
  const custom: Record<string, string> = user ? { user_id: user.id } : {};
  const now = new Date();
  const customerId = `sim_cus_${(user?.id ?? email ?? "guest").replace(/[^a-zA-Z0-9]/g, "").slice(0, 24)}`;

  if (match.kind === "bonus") {
    const orderId = `sim_ord_${checkout.cid}`;
    await deliverSimulatedEvent(
      "order_created",
      {
        type: "orders",
        id: orderId,
        attributes: {
          store_id: "simulator",
          customer_id: customerId,
          identifier: checkout.cid,
          user_email: email,
          status: "paid",
          total: Math.round(match.bonusPackage.price * 100),
          currency: pricingCatalog().currency,
          discount_code: checkout.discountCode ?? null,
          first_order_item: {
            variant_id: checkout.variantId,
            product_id: "simulator-bonus",
            price: Math.round(match.bonusPackage.price * 100),
            quantity: 1,
          },
          created_at: now.toISOString(),
          updated_at: now.toISOString(),
          test_mode: true,
        },
      },
      custom,
    );
    return { redirectUrl: checkout.redirectUrl, kind: "bonus" };
  }

  const subscriptionId = `sim_sub_${checkout.cid}`;
  const trialDays = pricingCatalog().trialDays;
  const onTrial = flags().pricingModel === "classic_saas" && trialDays > 0 && !user?.hasUsedTrial;
  const trialEndsAt = onTrial ? new Date(now.getTime() + trialDays * 86_400_000) : null;
  const renewsAt = trialEndsAt ?? addPeriod(now, match.billingPeriod);
  const attributes: SubscriptionAttributes = {
    store_id: "simulator",
    customer_id: customerId,
    order_id: `sim_ord_${checkout.cid}`,
    product_id: `simulator-${match.tier.key}`,
    variant_id: checkout.variantId,
    product_name: match.tier.name,
    variant_name: `${match.tier.name} ${match.billingPeriod}`,
    user_email: email,
    status: onTrial ? "on_trial" : "active",
    cancelled: false,
    pause: null,
    trial_ends_at: iso(trialEndsAt),
    renews_at: renewsAt.toISOString(),
    ends_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    urls: { customer_portal: null, update_payment_method: null },
    test_mode: true,
  };
  await deliverSimulatedEvent("subscription_created", { type: "subscriptions", id: subscriptionId, attributes }, custom);
  const price = match.billingPeriod === "yearly" ? match.tier.yearlyPrice : match.tier.monthlyPrice;
  await deliverSimulatedEvent(
    "subscription_payment_success",
    {
      type: "subscription-invoices",
      id: `sim_inv_${checkout.cid}`,
      attributes: {
        store_id: "simulator",
        subscription_id: subscriptionId,
        customer_id: customerId,
        user_email: email,
        billing_reason: "initial",
        status: "paid",
        total: onTrial ? 0 : Math.round(price * 100),
        currency: pricingCatalog().currency,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        test_mode: true,
      },
    },
    custom,
  );
  return { redirectUrl: checkout.redirectUrl, kind: "plan" };
}
