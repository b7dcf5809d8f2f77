import type { Metadata } from "next";
import { Overview } from "./overview";
import { dashboardFeatures } from "./features";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage({ searchParams }: { searchParams: Promise<{ checkout?: string }> }) {
  const { checkout } = await searchParams;
  return <Overview features={dashboardFeatures()} checkoutSuccess={checkout === "success"} />;
}
