import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { KEY_KINDS } from "@/lib/api-keys/schemas";
import { offeredModels, KIND_OF_MODEL } from "@/lib/ai/providers/offered-models";
import { flags } from "@/lib/config/flags";
import { KeysPanel } from "./keys-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API keys" };

export default function KeysPage() {
  if (!flags().apiKeys) notFound();
  const models = offeredModels().map((m) => ({ id: m.id, kind: KIND_OF_MODEL[m.kind] }));
  return <KeysPanel models={models} kinds={[...KEY_KINDS]} />;
}
