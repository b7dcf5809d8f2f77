import { UsersPanel } from "./users-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("Users", async () => <UsersPanel />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
