import { AdminOverview } from "./overview";

export const dynamic = "force-dynamic";
export const metadata = { title: "Overview" };

export default function AdminHome() {
  return <AdminOverview />;
}
