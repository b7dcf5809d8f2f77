import { AdminOverview } from "./overview";
import { consolePage } from "./operator-metadata";

const page = consolePage("Overview", async () => <AdminOverview />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
