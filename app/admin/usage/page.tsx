import { UsagePanel } from "./usage-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "AI usage" };

export default async function AdminUsagePage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  return <UsagePanel userId={sp.userId ?? ""} />;
}
