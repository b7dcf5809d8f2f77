import { EmailsPanel } from "./emails-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Emails" };

export default function AdminEmailsPage() {
  return <EmailsPanel />;
}
