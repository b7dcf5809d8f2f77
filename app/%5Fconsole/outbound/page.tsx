import { OutboundPanel } from "./outbound-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("Outbound webhooks", async () => <OutboundPanel />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
