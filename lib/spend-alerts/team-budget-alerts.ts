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
 * per window and budget (a changed budget re-arms it).
 *
 * The budgets are read with the windows, in one query, at every charge of an organisation that has
 * them: a budget raised on another instance is the one the next settlement compares with (a remembered
 * old budget would find its thresholds fired already and leave the new ones unfired until a later
 * charge). What is remembered is only what no query needs: an account that is no organisation (for
 * good: ids never change kind), and an organisation without budgets for NO_BUDGETS_TTL_MS (as members'
 * caps are), so their keys' charges cost no query.
 */
const NO_BUDGETS_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
/** Per account: until when it needs no query (Infinity for a person). */
const unbudgeted = processState("unbudgetedAccounts", () => new Map<string, number>());

interface BudgetRow {
  daily_budget: number | null;
  monthly_budget: number | null;
  budget_day_start: Date | string | null;
  budget_day_spent: number;
  budget_month_start: Date | string | null;
  budget_month_spent: number;
}

/** The firings a settled charge of an organisation with budgets reaches (none for anything else). */
export async function teamBudgetFirings(c: SettledCharge, settings: AlertSettings, nowMs = Date.now()): Promise<Firing[]> {
  if (!c.teamCharge || settings.allocationThresholds.length === 0) return [];
  if ((unbudgeted.get(c.accountId) ?? 0) > nowMs) return [];
  const prisma = await db();
  const [w] = await prisma.$queryRaw<BudgetRow[]>`
    SELECT o.daily_budget, o.monthly_budget, cb.budget_day_start, cb.budget_day_spent, cb.budget_month_start, cb.budget_month_spent
      FROM organisations o JOIN credit_balances cb ON cb.user_id = o.id
     WHERE o.id = ${c.accountId}`;
  if (!w || (w.daily_budget === null && w.monthly_budget === null)) {
    if (unbudgeted.size >= MAX_ENTRIES) unbudgeted.delete(unbudgeted.keys().next().value as string);
    const isOrganisation = w !== undefined || (await prisma.organisation.count({ where: { id: c.accountId } })) > 0;
    unbudgeted.set(c.accountId, isOrganisation ? nowMs + NO_BUDGETS_TTL_MS : Infinity);
    return [];
  }
  return windowFirings(
    c.accountId,
    settings,
    [
      { period: "day", limit: w.daily_budget, start: dateOf(w.budget_day_start), spent: Number(w.budget_day_spent) },
      { period: "month", limit: w.monthly_budget, start: dateOf(w.budget_month_start), spent: Number(w.budget_month_spent) },
    ],
    (win, t) => ({
      alert: `team:${win.period}:${t}`,
      data: { scope: "organisation", period: win.period, threshold: t, spent: win.spent, budget: win.limit },
    }),
  );
}

/** Called when an organisation's budgets change: this process reads them at its next charge (others within NO_BUDGETS_TTL_MS). */
export function forgetTeamBudgets(accountId: string): void {
  unbudgeted.delete(accountId);
}

/** A raw query's timestamp (a Date or its text, by driver adapter). */
function dateOf(at: Date | string | null): Date | null {
  return at === null ? null : new Date(at);
}
