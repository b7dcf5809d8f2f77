import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { callPrice, dashboardFeatures } from "../../features";
import { contentFormOptions } from "@/lib/ai/content/content-templates";
import { ContentPanel } from "./content-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Content templates" };

export default function ContentPage() {
  if (!dashboardFeatures().aiContent) notFound();
  return <ContentPanel price={callPrice("contentGeneration")} options={contentFormOptions()} />;
}
