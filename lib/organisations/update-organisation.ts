import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { forgetModelRules } from "@/lib/credits";
import { log } from "@/lib/log";
import { forgetTeamBudgets } from "@/lib/spend-alerts/team-budget-alerts";
import { changesOf } from "@/lib/audit/changes-of";
import { checkedAllowedModels } from "./check-allowed-models";
import { requireMemberToChange } from "./membership";
import { toOrganisationView } from "./views";

/** Renames an organisation, changes its slug, its model rule or its budgets (owner and admins). */
export async function updateOrganisation(
  organisationId: string,
  userId: string,
  body: { name?: string; slug?: string; allowedModels?: string[]; dailyBudget?: number | null; monthlyBudget?: number | null },
) {
  const acting = await requireMemberToChange(organisationId, userId, "admin");
  const data = { ...body, ...(body.allowedModels !== undefined ? { allowedModels: checkedAllowedModels(body.allowedModels) } : {}) };
  const prisma = await db();
  try {
    const org = await prisma.$transaction(async (tx) => {
      const before = await tx.organisation.findUniqueOrThrow({ where: { id: organisationId } });
      const updated = await tx.organisation.update({ where: { id: organisationId }, data });
      if (body.name) await tx.user.update({ where: { id: organisationId }, data: { name: body.name } });
      await recordOrganisationEvent(tx, {
        accountId: organisationId,
        actorId: userId,
        action: "organisation.updated",
        targetType: "organisation",
        targetId: organisationId,
        details: changesOf(before, updated, ["name", "slug", "allowedModels", "dailyBudget", "monthlyBudget"]),
      });
      return updated;
    });
    if (body.dailyBudget !== undefined || body.monthlyBudget !== undefined) forgetTeamBudgets(organisationId);
    if (body.allowedModels !== undefined) {
      forgetModelRules(organisationId);
      log.info("organisation model rule changed", { organisationId, by: userId, allowedModels: org.allowedModels });
    }
    return { organisation: toOrganisationView(org, acting.role) };
  } catch (error) {
    if ((error as { code?: string })?.code === "P2002") throw new AppError("conflict", `The slug "${body.slug}" is taken; choose another`);
    throw error;
  }
}
