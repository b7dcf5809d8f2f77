import { WebhookDetail } from "./webhook-detail";
import { operatorMetadata, requireOperatorPage } from "../../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Webhook delivery" });

export default async function AdminWebhookPage({ params }: { params: Promise<{ id: string }> }) {
  await requireOperatorPage();
  const { id } = await params;
  return <WebhookDetail id={id} />;
}
