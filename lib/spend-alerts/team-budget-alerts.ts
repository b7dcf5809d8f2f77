import type { SettledCharge } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { processState } from "@/lib/process-state";
import type { AlertSettings } from "./alert-settings";
import type { Firing } from "./fire-alert";
import { windowFirings } from "./window-firings";

/**
 * An organisation's team budgets (docs/API-NOTES.md "Organisations", team budgets) as spend alerts:
 * after a member's or a key's charge settles, its day and month windows are compared with the
 * account's thresholds (the same percentages as its allocation's), and `budget.threshold` fires once
 * per window and budget (a changed budget re-arms it). Budgets are remembered per process for
 * BUDGETS_TTL_MS, so a person's key or an organisation without budgets costs one query in that time.
 */
const BUDGETS_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const known = processState(
  "teamBudgets",
  () => new Map<string, { budgets: { daily: number | null; monthly: number | null } | null; until: number }>(),
);

async function budgetsOf(accountId: string, nowMs = Date.now()) {
  const hit = known.get(accountId);
  if (hit && hit.until > nowMs) return hit.budgets;
  const prisma = await db();
  const org = await prisma.organisation.findUnique({ where: { id: accountId }, select: { dailyBudget: true, monthlyBudget: true } });
  const budgets =
    org && (org.dailyBudget !== null || org.monthlyBudget !== null) ? { daily: org.dailyBudget, monthly: org.monthlyBudget } : null;
  if (known.size >= MAX_ENTRIES) known.delete(known.keys().next().value as string);
  known.set(accountId, { budgets, until: nowMs + BUDGETS_TTL_MS });
  return budgets;
}

/** The firings a settled charge of an organisation with budgets reaches (none for anything else). */
export async function teamBudgetFirings(c: SettledCharge, settings: AlertSettings): Promise<Firing[]> {
  if (!c.teamCharge || settings.allocationThresholds.length === 0) return [];
  const budgets = await budgetsOf(c.accountId);
  if (!budgets) return [];
  const prisma = await db();
  const w = await prisma.creditBalance.findUnique({
    where: { userId: c.accountId },
    select: { budgetDayStart: true, budgetDaySpent: true, budgetMonthStart: true, budgetMonthSpent: true },
  });
  if (!w) return [];
  return windowFirings(
    c.accountId,
    settings,
    [
      { period: "day", limit: budgets.daily, start: w.budgetDayStart, spent: w.budgetDaySpent },
      { period: "month", limit: budgets.monthly, start: w.budgetMonthStart, spent: w.budgetMonthSpent },
    ],
    (win, t) => ({
      alert: `team:${win.period}:${t}`,
      data: { scope: "organisation", period: win.period, threshold: t, spent: win.spent, budget: win.limit },
    }),
  );
}

/** Called when an organisation's budgets change: this process reads them again at its next charge (others within BUDGETS_TTL_MS). */
export function forgetTeamBudgets(accountId: string): void {
  known.delete(accountId);
}
