import { CronPanel } from "./cron-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "Cron" });

export default async function AdminCronPage() {
  await requireOperatorPage();
  return <CronPanel />;
}
