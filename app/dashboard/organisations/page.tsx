import type { Metadata } from "next";
import { OrganisationsPanel } from "./organisations-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Organisations" };

export default function OrganisationsPage() {
  return <OrganisationsPanel />;
}
