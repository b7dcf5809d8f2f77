import { UserDetail } from "./user-detail";

export const dynamic = "force-dynamic";
export const metadata = { title: "User" };

export default async function AdminUserPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <UserDetail id={id} />;
}
