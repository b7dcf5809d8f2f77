import { deleteOrganisation } from "@/lib/organisations/delete-organisation";
import { getOrganisation } from "@/lib/organisations/get-organisation";
import { updateOrganisation } from "@/lib/organisations/update-organisation";
import {
  deleteOrganisationBody,
  organisationDeletedResponse,
  organisationDetailResponse,
  organisationResponse,
  updateOrganisationBody,
} from "@/lib/organisations/schemas";
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
  DELETE: orgRoute(
    {
      rateLimit: "writes",
      body: deleteOrganisationBody,
      summary: "Delete an organisation (its owner, typing its slug as confirm)",
      description:
        "Its subscription is cancelled at the provider, every key revoked, every waiting invitation voided, every member detached. The account and its ledger are kept, closed: the remaining balance is refunded to nobody. 403 for an admin or member, or while an operator has it locked.",
      errors: [400],
      response: organisationDeletedResponse,
    },
    ({ user, params, body }) => deleteOrganisation(params.id, user.id, body.confirm),
  ),
});
