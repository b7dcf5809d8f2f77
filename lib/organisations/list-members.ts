import { db } from "@/lib/db/client";
import { roleAllows, type OrganisationRole } from "./roles";
import { requireMember } from "./membership";
import { memberCapsOf } from "./views";
import type { MemberView } from "./schemas";

const RANK: Record<string, number> = { owner: 0, admin: 1, member: 2 };

/** The members of an organisation (any member may see who belongs; caps and spend: admins, and each member their own). */
export async function listMembers(organisationId: string, userId: string): Promise<{ members: MemberView[] }> {
  const acting = await requireMember(organisationId, userId);
  const prisma = await db();
  const rows = await prisma.organisationMember.findMany({
    where: { organisationId },
    include: { user: { select: { email: true, name: true } } },
  });
  rows.sort((a, b) => RANK[a.role] - RANK[b.role] || a.createdAt.getTime() - b.createdAt.getTime());
  const seesCaps = roleAllows(acting.role, "admin");
  return { members: rows.map((m) => toMemberView(m, seesCaps || m.userId === userId)) };
}

export function toMemberView(
  m: {
    userId: string;
    role: string;
    createdAt: Date;
    dailyCap: number | null;
    monthlyCap: number | null;
    dayStart: Date | null;
    daySpent: number;
    monthStart: Date | null;
    monthSpent: number;
    allowedModels?: string[];
    user: { email: string | null; name: string | null };
  },
  withCaps: boolean,
): MemberView {
  return {
    userId: m.userId,
    email: m.user.email,
    name: m.user.name,
    role: m.role as OrganisationRole,
    joinedAt: m.createdAt.toISOString(),
    caps: withCaps ? memberCapsOf(m) : null,
  };
}
