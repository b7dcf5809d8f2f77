import { getCreditSummary } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/errors";
import { requireMember } from "./membership";
import { memberCapsOf, toOrganisationView } from "./views";

/** An organisation as one of its members sees it: its wallet, and their own role, caps and spend. */
export async function getOrganisation(organisationId: string, userId: string) {
  await requireMember(organisationId, userId);
  const prisma = await db();
  const member = await prisma.organisationMember.findUnique({
    where: { organisationId_userId: { organisationId, userId } },
    include: { organisation: true },
  });
  if (!member) throw notFound("Organisation");
  const [s, windows] = await Promise.all([
    getCreditSummary(organisationId),
    prisma.creditBalance.findUnique({
      where: { userId: organisationId },
      select: { budgetDayStart: true, budgetDaySpent: true, budgetMonthStart: true, budgetMonthSpent: true },
    }),
  ]);
  // The budget windows as the charge statement keeps them: one that began before today (this month) counts nothing.
  const spent = memberCapsOf({
    dailyCap: null,
    monthlyCap: null,
    dayStart: windows?.budgetDayStart ?? null,
    daySpent: windows?.budgetDaySpent ?? 0,
    monthStart: windows?.budgetMonthStart ?? null,
    monthSpent: windows?.budgetMonthSpent ?? 0,
  });
  return {
    organisation: toOrganisationView(member.organisation, member.role),
    wallet: {
      tier: s.tier,
      monthlyAllocation: s.monthlyAllocation,
      subscriptionCredits: s.subscriptionCredits,
      bonusCredits: s.bonusCredits,
      totalUsable: s.totalUsable,
      resetAt: s.resetAt?.toISOString() ?? null,
      spentToday: spent.spentToday,
      spentThisMonth: spent.spentThisMonth,
    },
    you: { userId, role: member.role as "owner" | "admin" | "member", ...memberCapsOf(member) },
  };
}
