import { AuditPanel } from "./audit-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Audit log" });

export default async function AdminAuditPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  await requireOperatorPage();
  const sp = await searchParams;
  return <AuditPanel targetId={sp.targetId ?? ""} />;
}
