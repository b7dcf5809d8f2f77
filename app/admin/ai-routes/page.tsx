import { AiRoutesPanel } from "./ai-routes-panel";

export const dynamic = "force-dynamic";
export const metadata = { title: "AI routes" };

export default function AdminAiRoutesPage() {
  return <AiRoutesPanel />;
}
