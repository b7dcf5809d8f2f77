import { AiRoutesPanel } from "./ai-routes-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("AI routes", async () => <AiRoutesPanel />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
