import type { SettledCharge } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { processState } from "@/lib/process-state";
import type { AlertSettings } from "./alert-settings";
import type { Firing } from "./fire-alert";
import { windowFirings } from "./window-firings";

/**
 * A member's spending caps in an organisation (docs/API-NOTES.md "Organisations", caps) as spend
 * alerts: after a member's charge to the organisation's wallet settles, their day and month windows
 * are compared with the account's thresholds (the same percentages as its allocation's), and
 * `budget.threshold` with scope `member` fires once per window and cap (a changed cap re-arms it). It
 * goes to the organisation's endpoints and, by email, to its owner and admins (not to the member).
 * Whether a member has caps at all is remembered per process for CAPS_TTL_MS, so an uncapped member
 * costs one query in that time.
 */
const CAPS_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const uncapped = processState("uncappedMembers", () => new Map<string, number>());

/** The firings a member's settled charge reaches (none for a person's own charge or an uncapped member). */
export async function memberCapFirings(c: SettledCharge, settings: AlertSettings, nowMs = Date.now()): Promise<Firing[]> {
  if (!c.memberId || settings.allocationThresholds.length === 0) return [];
  const memo = `${c.accountId}|${c.memberId}`;
  if ((uncapped.get(memo) ?? 0) > nowMs) return [];
  const prisma = await db();
  const m = await prisma.organisationMember.findUnique({
    where: { organisationId_userId: { organisationId: c.accountId, userId: c.memberId } },
    select: {
      dailyCap: true,
      monthlyCap: true,
      dayStart: true,
      daySpent: true,
      monthStart: true,
      monthSpent: true,
      user: { select: { email: true, name: true } },
    },
  });
  if (!m || ((m.dailyCap ?? 0) <= 0 && (m.monthlyCap ?? 0) <= 0)) {
    if (uncapped.size >= MAX_ENTRIES) uncapped.delete(uncapped.keys().next().value as string);
    uncapped.set(memo, nowMs + CAPS_TTL_MS);
    return [];
  }
  return windowFirings(
    c.accountId,
    settings,
    [
      { period: "day", limit: m.dailyCap, start: m.dayStart, spent: m.daySpent },
      { period: "month", limit: m.monthlyCap, start: m.monthStart, spent: m.monthSpent },
    ],
    (w, t) => ({
      alert: `member:${c.memberId}:${w.period}:${t}`,
      data: {
        scope: "member",
        memberId: c.memberId,
        memberEmail: m.user.email,
        memberName: m.user.name,
        period: w.period,
        threshold: t,
        spent: w.spent,
        cap: w.limit,
      },
    }),
  );
}

/** Called when a member's caps change: this process reads them again at the member's next charge. */
export function forgetMemberCaps(accountId: string, memberId: string): void {
  uncapped.delete(`${accountId}|${memberId}`);
}
