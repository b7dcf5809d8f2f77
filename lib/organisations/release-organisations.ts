import { cancelUserSubscriptions } from "@/lib/billing/subscriptions/cancel-user-subscriptions";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { forgetMembership } from "./membership";

/**
 * Before a person's account is deleted: every organisation they own passes to its longest-standing
 * admin (else member), so it always has one owner; one with no other member is deleted with its
 * wallet (its subscription cancelled at the provider first). Their memberships go by cascade.
 */
export async function releaseOrganisationsOf(userId: string): Promise<{ transferred: number; deleted: number }> {
  const prisma = await db();
  const owned = await prisma.organisationMember.findMany({ where: { userId, role: "owner" }, select: { organisationId: true } });
  let transferred = 0;
  let deleted = 0;
  for (const { organisationId } of owned) {
    const heir = await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT 1 FROM organisations WHERE id = ${organisationId}::text FOR UPDATE`;
      const others = await tx.organisationMember.findMany({
        where: { organisationId, userId: { not: userId } },
        orderBy: [{ createdAt: "asc" }],
      });
      const next = others.find((m) => m.role === "admin") ?? others[0];
      if (!next) return null;
      await tx.organisationMember.update({
        where: { organisationId_userId: { organisationId, userId: next.userId } },
        data: { role: "owner" },
      });
      await tx.organisationMember.update({ where: { organisationId_userId: { organisationId, userId } }, data: { role: "admin" } });
      return next.userId;
    });
    if (heir) {
      forgetMembership(organisationId, heir);
      transferred++;
      log.info("organisation ownership passed on (owner deleted)", { organisationId, to: heir });
      continue;
    }
    await cancelUserSubscriptions(organisationId).catch((error) =>
      log.error("organisation subscription not cancelled", { organisationId, error }),
    );
    await prisma.user.deleteMany({ where: { id: organisationId, kind: "organisation" } });
    deleted++;
    log.info("organisation deleted with its only member", { organisationId });
  }
  return { transferred, deleted };
}
