import type { Metadata } from "next";
import { flags } from "@/lib/config/flags";
import { pricingCatalog } from "@/lib/config/pricing";
import type { PlanOption } from "@/components/types";
import { BillingPanel } from "./billing-panel";
import { ReceiptsPanel } from "./receipts-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Billing" };

/** Plans come from the pricing catalog (server); every action goes through the payments API. */
export default async function BillingPage({ searchParams }: { searchParams: Promise<{ checkout?: string }> }) {
  const { checkout } = await searchParams;
  const f = flags();
  const catalog = pricingCatalog();
  const plans: PlanOption[] = catalog.tiers
    .filter((t) => t.key !== "free")
    .map((t) => ({
      key: t.key,
      name: t.name,
      monthlyPrice: t.monthlyPrice,
      yearlyPrice: t.yearlyPrice,
      monthlyCredits: t.monthlyCredits,
      variants: t.variants,
    }));
  return (
    <>
      <BillingPanel
        plans={plans}
        currency={catalog.currency}
        creditBased={f.creditBased}
        trialDays={f.creditBased ? 0 : catalog.trialDays}
        checkoutCancelled={checkout === "cancelled"}
        paymentsEnabled={f.payments}
      />
      {f.payments ? <ReceiptsPanel /> : null}
    </>
  );
}
