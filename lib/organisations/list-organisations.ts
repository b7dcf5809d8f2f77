import { db } from "@/lib/db/client";
import { toOrganisationView } from "./views";
import type { OrganisationView } from "./schemas";

/** The organisations a person belongs to, with their role in each, oldest membership first. */
export async function listOrganisations(userId: string): Promise<{ organisations: OrganisationView[] }> {
  const prisma = await db();
  const rows = await prisma.organisationMember.findMany({
    where: { userId },
    include: { organisation: true },
    orderBy: [{ createdAt: "asc" }, { organisationId: "asc" }],
  });
  return { organisations: rows.map((m) => toOrganisationView(m.organisation, m.role)) };
}
