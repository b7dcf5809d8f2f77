import { UsersPanel } from "./users-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Users" });

export default async function AdminUsersPage() {
  await requireOperatorPage();
  return <UsersPanel />;
}
