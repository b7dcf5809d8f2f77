import { WebhookDetail } from "./webhook-detail";

export const dynamic = "force-dynamic";
export const metadata = { title: "Webhook delivery" };

export default async function AdminWebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <WebhookDetail id={id} />;
}
