import { UsagePanel } from "./usage-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("AI usage", async ({ searchParams }) => <UsagePanel userId={(await searchParams).userId ?? ""} />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
