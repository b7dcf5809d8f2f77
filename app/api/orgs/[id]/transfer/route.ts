import { transferOwnership } from "@/lib/organisations/transfer-ownership";
import { memberResponse, transferBody } from "@/lib/organisations/schemas";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: orgRoute(
    {
      rateLimit: "writes",
      body: transferBody,
      summary: "Transfer ownership to another member (owner only); you stay as an admin",
      response: memberResponse,
    },
    ({ user, params, body }) => transferOwnership(params.id, user.id, body.userId),
  ),
});
