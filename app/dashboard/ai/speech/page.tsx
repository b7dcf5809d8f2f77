import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { callPrice, dashboardFeatures } from "../../features";
import { speechLanguageOptions } from "@/lib/ai/language";
import { SpeechPanel } from "./speech-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Speech to text" };

export default function SpeechPage() {
  if (!dashboardFeatures().aiAudio) notFound();
  return <SpeechPanel price={callPrice("speechToText")} languages={speechLanguageOptions()} />;
}
