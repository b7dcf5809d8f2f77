import { CronPanel } from "./cron-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "Cron" };

export default function AdminCronPage() {
  return <CronPanel />;
}
