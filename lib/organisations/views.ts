import type { OrganisationMember } from "@/lib/generated/prisma/client";
import type { OrganisationRole } from "./roles";
import type { OrganisationView } from "./schemas";

export function toOrganisationView(
  org: {
    id: string;
    name: string;
    slug: string;
    createdAt: Date;
    allowedModels?: string[];
    dailyBudget?: number | null;
    monthlyBudget?: number | null;
  },
  role: string,
): OrganisationView {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    role: role as OrganisationRole,
    allowedModels: org.allowedModels ?? [],
    dailyBudget: org.dailyBudget ?? null,
    monthlyBudget: org.monthlyBudget ?? null,
    createdAt: org.createdAt.toISOString(),
  };
}

/** A member's spend in the current windows: a window that began before today (or this month) counts nothing. */
export function memberCapsOf(
  m: Pick<OrganisationMember, "dailyCap" | "monthlyCap" | "dayStart" | "daySpent" | "monthStart" | "monthSpent"> & {
    allowedModels?: string[];
  },
  now = new Date(),
) {
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const month = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  return {
    dailyCap: m.dailyCap,
    monthlyCap: m.monthlyCap,
    spentToday: m.dayStart && m.dayStart.getTime() === day ? m.daySpent : 0,
    spentThisMonth: m.monthStart && m.monthStart.getTime() === month ? m.monthSpent : 0,
    allowedModels: m.allowedModels ?? [],
  };
}
