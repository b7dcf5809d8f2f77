import { AuditPanel } from "./audit-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Audit log" };

export default async function AdminAuditPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  return <AuditPanel targetId={sp.targetId ?? ""} />;
}
