import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { callPrice, dashboardFeatures } from "../../features";
import { ImagePanel } from "./image-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Image generation" };

export default function ImagePage() {
  if (!dashboardFeatures().aiImage) notFound();
  return <ImagePanel price={callPrice("imageGeneration")} />;
}
