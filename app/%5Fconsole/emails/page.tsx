import { EmailsPanel } from "./emails-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("Emails", async ({ searchParams }) => <EmailsPanel initialStatus={(await searchParams).status ?? ""} />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
