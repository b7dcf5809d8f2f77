import { AiRoutesPanel } from "./ai-routes-panel";
import { operatorMetadata, requireOperatorPage } from "../operator-metadata";

export const dynamic = "force-dynamic";
export const generateMetadata = operatorMetadata({ title: "AI routes" });

export default async function AdminAiRoutesPage() {
  await requireOperatorPage();
  return <AiRoutesPanel />;
}
