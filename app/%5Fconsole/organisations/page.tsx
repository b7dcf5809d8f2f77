import { OrganisationsPanel } from "./organisations-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("Organisations", async () => <OrganisationsPanel />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
