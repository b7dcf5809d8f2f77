import { WebhooksPanel } from "./webhooks-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Webhooks" });

export default async function AdminWebhooksPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  await requireOperatorPage();
  const sp = await searchParams;
  return <WebhooksPanel initial={{ source: sp.source ?? "", status: sp.status ?? "", type: sp.type ?? "", q: sp.q ?? "" }} />;
}
