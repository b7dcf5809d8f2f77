import { getOrganisation } from "@/lib/organisations/get-organisation";
import { updateOrganisation } from "@/lib/organisations/update-organisation";
import { organisationDetailResponse, organisationResponse, updateOrganisationBody } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: orgRoute(
    {
      rateLimit: null,
      summary: "An organisation: its wallet, and your role, caps and spend in it (any member)",
      response: organisationDetailResponse,
    },
    ({ user, params }) => getOrganisation(params.id, user.id),
  ),
  PATCH: orgRoute(
    {
      rateLimit: "writes",
      body: updateOrganisationBody,
      summary: "Rename an organisation or change its slug (owner and admins)",
      errors: [409],
      response: organisationResponse,
    },
    ({ user, params, body }) => updateOrganisation(params.id, user.id, body),
  ),
});
