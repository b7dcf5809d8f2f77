import { AuditPanel } from "./audit-panel";
import { consolePage } from "../operator-metadata";

const page = consolePage("Audit log", async ({ searchParams }) => <AuditPanel targetId={(await searchParams).targetId ?? ""} />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
