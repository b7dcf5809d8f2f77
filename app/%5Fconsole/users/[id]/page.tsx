import { UserDetail } from "./user-detail";
import { consolePage } from "../../operator-metadata";

const page = consolePage("User", async ({ params }) => <UserDetail id={(await params).id} />);

export const dynamic = "force-dynamic";
export const generateMetadata = page.generateMetadata;
export default page.Page;
