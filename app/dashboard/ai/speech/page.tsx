import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CREDIT_COSTS } from "@/lib/config/pricing";
import { dashboardFeatures } from "../../features";
import { SpeechPanel } from "./speech-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Speech to text" };

export default function SpeechPage() {
  const f = dashboardFeatures();
  if (!f.aiAudio) notFound();
  return <SpeechPanel cost={f.creditBased ? CREDIT_COSTS.speechToText : 0} />;
}
