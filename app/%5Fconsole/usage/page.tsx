import { UsagePanel } from "./usage-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "AI usage" });

export default async function AdminUsagePage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  await requireOperatorPage();
  const sp = await searchParams;
  return <UsagePanel userId={sp.userId ?? ""} />;
}
