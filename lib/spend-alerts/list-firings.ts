import { db } from "@/lib/db/client";
import { alertSettingsOf } from "./alert-settings";

/** An account's alert settings and the last 20 alerts that fired. */
export async function getAlerts(accountId: string) {
  const prisma = await db();
  const [alerts, rows] = await Promise.all([
    alertSettingsOf(accountId, 0),
    prisma.alertFiring.findMany({ where: { accountId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 20 }),
  ]);
  return {
    alerts,
    fired: rows.map((r) => ({ alert: r.alert, period: r.period, eventId: r.eventId, createdAt: r.createdAt.toISOString() })),
  };
}
