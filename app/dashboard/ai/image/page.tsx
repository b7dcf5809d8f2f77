import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CREDIT_COSTS } from "@/lib/config/pricing";
import { dashboardFeatures } from "../../features";
import { ImagePanel } from "./image-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Image generation" };

export default function ImagePage() {
  const f = dashboardFeatures();
  if (!f.aiImage) notFound();
  return <ImagePanel cost={f.creditBased ? CREDIT_COSTS.imageGeneration : 0} />;
}
