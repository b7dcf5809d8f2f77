import { createOrganisation } from "@/lib/organisations/create-organisation";
import { listOrganisations } from "@/lib/organisations/list-organisations";
import { createOrganisationBody, organisationResponse, organisationsResponse } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: orgRoute(
    { rateLimit: null, summary: "The organisations you belong to, with your role in each", response: organisationsResponse },
    ({ user }) => listOrganisations(user.id),
  ),
  POST: orgRoute(
    {
      rateLimit: "writes",
      body: createOrganisationBody,
      summary: "Create an organisation (you are its owner); it starts with an empty wallet",
      description:
        "An organisation has no free monthly allocation: its owner or an admin buys a plan or bonus credits for it. 409 when the slug is taken; 403 past 20 owned organisations.",
      errors: [409],
      response: organisationResponse,
    },
    ({ user, body }) => createOrganisation(user.id, body),
  ),
});
