import { UsersPanel } from "./users-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Users" };

export default function AdminUsersPage() {
  return <UsersPanel />;
}
