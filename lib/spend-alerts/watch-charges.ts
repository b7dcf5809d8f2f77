import { accountPeriodEnd, observeCharges, type SettledCharge } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { processState } from "@/lib/process-state";
import { alertSettingsOf } from "./alert-settings";
import { fireAlert, type Firing } from "./fire-alert";
import { memberCapFirings } from "./member-cap-alerts";
import { projectedOverrunFirings, spendRateFirings } from "./pace-alerts";
import { teamBudgetFirings } from "./team-budget-alerts";

/**
 * Spend alerts as an observer of charges (docs/API-NOTES.md "Spend alerts and webhooks"): lib/credits
 * tells what each charge did once it is settled (a refunded call, whose work failed, fires nothing),
 * and each refusal for want of credits; the charge itself knows nothing of alerts. What the settlement
 * left (the buckets after it, the allocation and its cycle, the key's window) is compared with the
 * account's thresholds, off the request's path. A level reached fires once per period: the firing row
 * is unique (fire-alert.ts), and each process remembers what it already fired so an account past a
 * threshold costs no query per call. The route wrapper's runtime (lib/http/route.ts) starts watching.
 */
const MAX_MEMO = 20_000;
const fired = processState("alertMemo", () => new Set<string>());
/** Per account: the balance at which credits.low / depleted was last settled; a higher balance later means a top-up. */
const lowMarks = processState("lowMarks", () => new Map<string, { balance: number; depleted: boolean }>());

function remember(key: string): void {
  if (fired.size >= MAX_MEMO) fired.delete(fired.values().next().value as string);
  fired.add(key);
}

/** Starts watching charges (idempotent: one observer per process, whichever bundle calls it). */
export function watchCharges(): void {
  observeCharges("spend-alerts", {
    settled: (charge) => evaluate(charge),
    // A charge refused for want of credits: the account is out of them (credits.depleted, once per top-up period).
    refused: (accountId, available) => lowAlerts(accountId, available, true),
  });
}

async function evaluate(c: SettledCharge): Promise<void> {
  const a = c.allowance;
  const settings = await alertSettingsOf(c.accountId);
  const cycle = a.resetAt ? a.resetAt.toISOString() : "none";
  const firings: Firing[] = [];
  if (a.monthlyAllocation > 0) {
    const used = Math.max(0, a.monthlyAllocation - c.subscriptionCredits);
    let resetsAt: string | undefined;
    for (const t of settings.allocationThresholds) {
      if (used < Math.ceil((a.monthlyAllocation * t) / 100)) continue;
      resetsAt ??= (await accountPeriodEnd(c.accountId)).toISOString();
      firings.push({
        accountId: c.accountId,
        alert: `allocation:${t}`,
        period: cycle,
        type: "budget.threshold",
        data: { scope: "allocation", threshold: t, used, allocation: a.monthlyAllocation, balance: c.remaining, resetsAt },
        email: settings.email,
      });
    }
  }
  const key = c.key;
  if (key?.alertThresholds?.length) {
    // The budget is part of the period: a changed budget (which starts counting afresh) re-arms its thresholds, on every instance.
    const period = `${key.period === "total" || !key.windowStart ? "total" : key.windowStart.toISOString()}@${key.budget}`;
    let name: string | null | undefined;
    for (const t of key.alertThresholds) {
      if (key.spent < Math.ceil((key.budget * t) / 100)) continue;
      // Already fired here: no query for the key's name on every later charge.
      if (fired.has(`${c.accountId}|key:${key.id}:${t}|${period}`)) continue;
      name ??= await keyName(key.id);
      firings.push({
        accountId: c.accountId,
        alert: `key:${key.id}:${t}`,
        period,
        type: "budget.threshold",
        data: { scope: "key", keyId: key.id, keyName: name, threshold: t, spent: key.spent, budget: key.budget, period: key.period },
        email: settings.email,
      });
    }
  }
  firings.push(...(await teamBudgetFirings(c, settings)));
  firings.push(...(await memberCapFirings(c, settings)));
  firings.push(...(await spendRateFirings(c, settings, (alert, period) => fired.has(`${c.accountId}|${alert}|${period}`))));
  firings.push(...(await projectedOverrunFirings(c, settings)));
  for (const f of firings) {
    const memo = `${f.accountId}|${f.alert}|${f.period}`;
    if (fired.has(memo)) continue;
    await fireAlert(f);
    remember(memo);
  }
  await lowAlerts(c.accountId, c.remaining, false, settings.lowBalance, settings.email);
}

/** credits.low under the account's level, credits.depleted at 0 (or a refusal): once per top-up period. */
async function lowAlerts(accountId: string, balance: number, refused: boolean, level?: number, email?: boolean): Promise<void> {
  const settings = level === undefined ? await alertSettingsOf(accountId) : { lowBalance: level, email: email ?? true };
  const depleted = refused || balance <= 0;
  const low = settings.lowBalance > 0 && balance < settings.lowBalance;
  if (!low && !depleted) {
    lowMarks.delete(accountId);
    return;
  }
  // Still at or under the balance of the last evaluation, and nothing new to say: no top-up since, no
  // query (a client refused again and again costs nothing here).
  const mark = lowMarks.get(accountId);
  if (mark !== undefined && balance <= mark.balance && (!depleted || mark.depleted)) return;
  const period = await topUpPeriod(accountId);
  if (low)
    await fireOnce({
      accountId,
      alert: "low",
      period,
      type: "credits.low",
      data: { balance, level: settings.lowBalance },
      email: settings.email,
    });
  if (depleted)
    await fireOnce({
      accountId,
      alert: "depleted",
      period,
      type: "credits.depleted",
      data: { balance: Math.max(0, balance), resetsAt: (await accountPeriodEnd(accountId)).toISOString() },
      email: settings.email,
    });
  if (lowMarks.size >= MAX_MEMO) lowMarks.delete(lowMarks.keys().next().value as string);
  lowMarks.set(accountId, { balance, depleted: depleted || Boolean(mark?.depleted && balance <= mark.balance) });
}

async function fireOnce(f: Firing): Promise<void> {
  const memo = `${f.accountId}|${f.alert}|${f.period}`;
  if (fired.has(memo)) return;
  await fireAlert(f);
  remember(memo);
}

/** The last time credits were added (a purchase, an allocation, an operator's credit): a low balance alert fires again after one. */
async function topUpPeriod(accountId: string): Promise<string> {
  const prisma = await db();
  const rows = await prisma.$queryRaw<{ at: Date | null }[]>`
    SELECT MAX(created_at) AS at FROM credit_transactions
     WHERE user_id = ${accountId} AND amount > 0 AND type IN ('purchase', 'monthly_reset', 'adjustment')`;
  return rows[0]?.at ? new Date(rows[0].at).toISOString() : "none";
}

async function keyName(keyId: string): Promise<string | null> {
  const prisma = await db();
  return (await prisma.apiKey.findUnique({ where: { id: keyId }, select: { name: true } }))?.name ?? null;
}
