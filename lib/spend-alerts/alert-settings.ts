import { db } from "@/lib/db/client";
import { processState } from "@/lib/process-state";

/** An account's alert settings (docs/API-NOTES.md "Spend alerts and webhooks"). */
export interface AlertSettings {
  /** Percentages of the monthly allocation at which budget.threshold fires. */
  allocationThresholds: number[];
  /** Usable credits under which credits.low fires (0: never). */
  lowBalance: number;
  /** Whether alerts are emailed too (webhooks get them whenever an endpoint subscribes). */
  email: boolean;
  /** Settled credits in a UTC hour at which spend.rate fires (null: off). */
  hourlySpendLimit: number | null;
  /** Whether credits.projected_overrun fires. */
  projectedOverrun: boolean;
}

/** Everyone's until they change them: 80% and 100% of the allocation, under 50 credits, the projection, by email; no hourly limit. */
export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  allocationThresholds: [80, 100],
  lowBalance: 50,
  email: true,
  hourlySpendLimit: null,
  projectedOverrun: true,
};

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const known = processState("alertSettings", () => new Map<string, { settings: AlertSettings; until: number }>());

/** An account's settings (the defaults without a row), remembered for 5 seconds per process. */
export async function alertSettingsOf(accountId: string, nowMs = Date.now()): Promise<AlertSettings> {
  const hit = known.get(accountId);
  if (hit && hit.until > nowMs) return hit.settings;
  const prisma = await db();
  const row = await prisma.alertSettings.findUnique({ where: { accountId } });
  const settings = row
    ? {
        allocationThresholds: row.allocationThresholds,
        lowBalance: row.lowBalance ?? DEFAULT_ALERT_SETTINGS.lowBalance,
        email: row.email,
        hourlySpendLimit: row.hourlySpendLimit || null,
        projectedOverrun: row.projectedOverrun,
      }
    : DEFAULT_ALERT_SETTINGS;
  if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
  known.set(accountId, { settings, until: nowMs + TTL_MS });
  return settings;
}

/** Changes an account's settings (what is not given stays). */
export async function setAlertSettings(accountId: string, body: Partial<AlertSettings>): Promise<{ alerts: AlertSettings }> {
  const current = await alertSettingsOf(accountId, 0);
  const next: AlertSettings = {
    allocationThresholds: body.allocationThresholds
      ? [...new Set(body.allocationThresholds)].sort((a, b) => a - b)
      : current.allocationThresholds,
    lowBalance: body.lowBalance ?? current.lowBalance,
    email: body.email ?? current.email,
    // 0 and null both turn it off.
    hourlySpendLimit: body.hourlySpendLimit === undefined ? current.hourlySpendLimit : body.hourlySpendLimit || null,
    projectedOverrun: body.projectedOverrun ?? current.projectedOverrun,
  };
  const prisma = await db();
  const data = {
    allocationThresholds: next.allocationThresholds,
    lowBalance: next.lowBalance,
    email: next.email,
    hourlySpendLimit: next.hourlySpendLimit,
    projectedOverrun: next.projectedOverrun,
  };
  await prisma.alertSettings.upsert({ where: { accountId }, create: { accountId, ...data }, update: data });
  known.delete(accountId);
  return { alerts: next };
}
