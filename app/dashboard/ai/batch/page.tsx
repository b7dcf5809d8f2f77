import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { DEFAULT_CACHE_TTL_SECONDS, MAX_BATCH, MAX_CACHE_TTL_SECONDS } from "@/lib/ai/schemas";
import { callPrice, chatModels, dashboardFeatures } from "../../features";
import { BatchPanel } from "./batch-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Single / batch chat" };

export default function BatchChatPage() {
  const f = dashboardFeatures();
  if (!f.aiChat) notFound();
  return (
    <BatchPanel
      {...chatModels()}
      price={callPrice("chat")}
      maxBatch={MAX_BATCH}
      defaultCacheTtl={DEFAULT_CACHE_TTL_SECONDS}
      maxCacheTtl={MAX_CACHE_TTL_SECONDS}
    />
  );
}
