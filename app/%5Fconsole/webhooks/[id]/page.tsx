import { WebhookDetail } from "./webhook-detail";
import { consolePage } from "../../operator-metadata";

const page = consolePage("Webhook delivery", async ({ params }) => <WebhookDetail id={(await params).id} />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
