import { AdminOverview } from "./overview";
import { operatorMetadata, requireOperatorPage } from "./operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Overview" });

export default async function AdminHome() {
  await requireOperatorPage();
  return <AdminOverview />;
}
