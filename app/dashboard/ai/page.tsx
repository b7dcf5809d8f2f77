import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { callPrice, chatModels, dashboardFeatures } from "../features";
import { ChatPanel } from "./chat-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Chat" };

export default function ChatPage() {
  const f = dashboardFeatures();
  if (!f.aiChat) {
    if (f.aiImage) redirect("/dashboard/ai/image");
    if (f.aiContent) redirect("/dashboard/ai/content");
    if (f.aiAudio) redirect("/dashboard/ai/speech");
    notFound();
  }
  return <ChatPanel {...chatModels()} priceText={callPrice("streamText")} priceImage={callPrice("streamImage")} />;
}
