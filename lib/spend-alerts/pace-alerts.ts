import { projectCycle, type SettledCharge } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { processState } from "@/lib/process-state";
import type { AlertSettings } from "./alert-settings";
import type { Firing } from "./fire-alert";

/**
 * Two alerts about the pace of spending rather than its level (docs/API-NOTES.md "Spend alerts and
 * webhooks"):
 * - `spend.rate`: the credits settled in this UTC hour reached the account's `hourlySpendLimit`
 *   (once per hour; off when the limit is null or 0);
 * - `credits.projected_overrun`: at this cycle's pace (the usage report's projection, which speaks only
 *   after a day and 10 calls) the spend still to come before the period ends is more than the usable
 *   balance (once per cycle; `projectedOverrun`, on by default). Read at most every PROJECTION_EVERY_MS
 *   per account and process, never in a cycle's first day.
 */
const PROJECTION_EVERY_MS = 10 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
const MAX_ENTRIES = 10_000;
const projectedAt = processState("projectionReadAt", () => new Map<string, number>());

/** `firedAlready`: whether this process already fired that alert for that period (then the hour's sum is not read again). */
export async function spendRateFirings(
  c: SettledCharge,
  settings: AlertSettings,
  firedAlready: (alert: string, period: string) => boolean,
  nowMs = Date.now(),
): Promise<Firing[]> {
  const limit = settings.hourlySpendLimit;
  if (!limit || limit <= 0 || c.charged <= 0) return [];
  const hourStart = new Date(Math.floor(nowMs / 3_600_000) * 3_600_000);
  if (firedAlready("rate:hour", hourStart.toISOString())) return [];
  const prisma = await db();
  const [row] = await prisma.$queryRaw<{ spent: bigint | number | null }[]>`
    SELECT COALESCE(SUM(amount), 0) AS spent FROM credit_operations
     WHERE user_id = ${c.accountId} AND kind = 'charge' AND status = 'settled' AND created_at >= ${hourStart}`;
  const spent = Number(row?.spent ?? 0);
  if (spent < limit) return [];
  return [
    {
      accountId: c.accountId,
      alert: "rate:hour",
      period: hourStart.toISOString(),
      type: "spend.rate",
      data: { spent, limit, hourStart: hourStart.toISOString(), hourEnd: new Date(hourStart.getTime() + 3_600_000).toISOString() },
      email: settings.email,
    },
  ];
}

export async function projectedOverrunFirings(c: SettledCharge, settings: AlertSettings, nowMs = Date.now()): Promise<Firing[]> {
  if (!settings.projectedOverrun || !c.allowance.resetAt) return [];
  if (nowMs - c.allowance.resetAt.getTime() < DAY_MS) return [];
  const last = projectedAt.get(c.accountId);
  if (last !== undefined && nowMs - last < PROJECTION_EVERY_MS) return [];
  if (projectedAt.size >= MAX_ENTRIES) projectedAt.delete(projectedAt.keys().next().value as string);
  projectedAt.set(c.accountId, nowMs);
  const p = await projectCycle(c.accountId, null, nowMs);
  if (!p || p.projected === null) return [];
  const toCome = p.projected - p.spent;
  if (toCome <= c.remaining) return [];
  return [
    {
      accountId: c.accountId,
      alert: "projection",
      period: p.cycleStart,
      type: "credits.projected_overrun",
      data: { spent: p.spent, projected: p.projected, balance: c.remaining, cycleEnd: p.cycleEnd },
      email: settings.email,
    },
  ];
}
