import { EmailsPanel } from "./emails-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Emails" });

export default async function AdminEmailsPage() {
  await requireOperatorPage();
  return <EmailsPanel />;
}
