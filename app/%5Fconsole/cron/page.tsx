import { CronPanel } from "./cron-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("Cron", async () => <CronPanel />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
