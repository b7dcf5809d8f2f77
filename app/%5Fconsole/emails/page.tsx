import { EmailsPanel } from "./emails-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Emails" });

export default async function AdminEmailsPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  await requireOperatorPage();
  const { status } = await searchParams;
  return <EmailsPanel initialStatus={status ?? ""} />;
}
