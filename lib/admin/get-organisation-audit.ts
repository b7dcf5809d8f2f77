import { listOrganisationEvents, type AuditQuery } from "@/lib/audit/list-organisation-events";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/errors";

/** GET /api/admin/organisations/{id}/audit: any organisation's audit log, a closed one's too (404 for no organisation). */
export async function getOrganisationAuditForOperator(organisationId: string, query: Omit<AuditQuery, "organisationId">) {
  const prisma = await db();
  const exists = /^[0-9a-f-]{36}$/i.test(organisationId) ? await prisma.organisation.count({ where: { id: organisationId } }) : 0;
  if (!exists) throw notFound("Organisation");
  return listOrganisationEvents({ ...query, organisationId });
}
