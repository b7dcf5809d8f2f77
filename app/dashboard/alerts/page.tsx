import type { Metadata } from "next";
import { SUBSCRIBABLE } from "@/lib/outbound/event-types";
import { AlertsPanel } from "./alerts-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Alerts and webhooks" };

export default function AlertsPage() {
  return <AlertsPanel events={[...SUBSCRIBABLE]} />;
}
