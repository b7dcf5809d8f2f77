import { UserDetail } from "./user-detail";
import { operatorMetadata, requireOperatorPage } from "../../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "User" });

export default async function AdminUserPage({ params }: { params: Promise<{ id: string }> }) {
  await requireOperatorPage();
  const { id } = await params;
  return <UserDetail id={id} />;
}
