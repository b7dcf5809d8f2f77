import { WebhooksPanel } from "./webhooks-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("Webhooks", async ({ searchParams }) => {
  const sp = await searchParams;
  return <WebhooksPanel initial={{ source: sp.source ?? "", status: sp.status ?? "", type: sp.type ?? "", q: sp.q ?? "" }} />;
});

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
