import { listOrganisationEvents, type AuditQuery } from "@/lib/audit/list-organisation-events";
import { requireMember } from "./membership";

/** GET /api/orgs/{id}/audit: the organisation's audit log, for its owner and admins (a member: 403). */
export async function getOrganisationAudit(organisationId: string, userId: string, query: Omit<AuditQuery, "organisationId">) {
  await requireMember(organisationId, userId, "admin");
  return listOrganisationEvents({ ...query, organisationId });
}
