import type { Metadata } from "next";
import { pricingCatalog } from "@/lib/config/pricing";
import { dashboardFeatures } from "../features";
import { CreditsPanel } from "./credits-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Credits" };

export default async function CreditsPage({ searchParams }: { searchParams: Promise<{ purchase?: string }> }) {
  const { purchase } = await searchParams;
  const catalog = pricingCatalog();
  return (
    <CreditsPanel
      features={dashboardFeatures()}
      currency={catalog.currency}
      bonusExpiryDays={catalog.bonusExpiryDays}
      purchaseSuccess={purchase === "success"}
    />
  );
}
