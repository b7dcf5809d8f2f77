import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CREDIT_COSTS } from "@/lib/config/pricing";
import { dashboardFeatures } from "../../features";
import { ContentPanel } from "./content-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Content templates" };

export default function ContentPage() {
  const f = dashboardFeatures();
  if (!f.aiContent) notFound();
  return <ContentPanel cost={f.creditBased ? CREDIT_COSTS.contentGeneration : 0} />;
}
