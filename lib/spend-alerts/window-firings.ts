import type { AlertSettings } from "./alert-settings";
import type { Firing } from "./fire-alert";

/** A day's or a month's spend against its limit, as a team budget or a member's cap keeps it. */
export interface SpendWindow {
  period: "day" | "month";
  limit: number | null;
  start: Date | null;
  spent: number;
}

/**
 * `budget.threshold` for each window whose spend reached one of the account's percentages of its
 * limit, once per window and limit: the firing's period names the window's start and the limit, so a
 * changed limit re-arms them (team budgets and members' caps alike).
 */
export function windowFirings(
  accountId: string,
  settings: AlertSettings,
  windows: SpendWindow[],
  describe: (w: SpendWindow, threshold: number) => { alert: string; data: Record<string, unknown> },
): Firing[] {
  const firings: Firing[] = [];
  for (const w of windows) {
    if (w.limit === null || w.limit <= 0 || !w.start) continue;
    for (const t of settings.allocationThresholds) {
      if (w.spent < Math.ceil((w.limit * t) / 100)) continue;
      const { alert, data } = describe(w, t);
      firings.push({
        accountId,
        alert,
        period: `${w.start.toISOString()}@${w.limit}`,
        type: "budget.threshold",
        data,
        email: settings.email,
      });
    }
  }
  return firings;
}
