import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { dashboardFeatures } from "../features";
import { KnowledgePanel } from "./knowledge-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Knowledge" };

export default function KnowledgePage() {
  const f = dashboardFeatures();
  if (!f.aiRag) notFound();
  return <KnowledgePanel creditBased={f.creditBased} />;
}
