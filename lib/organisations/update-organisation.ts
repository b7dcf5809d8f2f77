import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { requireMemberToChange } from "./membership";
import { toOrganisationView } from "./views";

/** Renames an organisation or changes its slug (owner and admins). */
export async function updateOrganisation(organisationId: string, userId: string, body: { name?: string; slug?: string }) {
  const acting = await requireMemberToChange(organisationId, userId, "admin");
  const prisma = await db();
  try {
    const org = await prisma.$transaction(async (tx) => {
      const updated = await tx.organisation.update({ where: { id: organisationId }, data: body });
      if (body.name) await tx.user.update({ where: { id: organisationId }, data: { name: body.name } });
      return updated;
    });
    return { organisation: toOrganisationView(org, acting.role) };
  } catch (error) {
    if ((error as { code?: string })?.code === "P2002") throw new AppError("conflict", `The slug "${body.slug}" is taken; choose another`);
    throw error;
  }
}
