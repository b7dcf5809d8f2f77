import { WebhooksPanel } from "./webhooks-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Webhooks" };

export default async function AdminWebhooksPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  return <WebhooksPanel initial={{ source: sp.source ?? "", status: sp.status ?? "", type: sp.type ?? "", q: sp.q ?? "" }} />;
}
