import { methods, route } from "@/lib/http/route";
import { keyScopeOf, revokeApiKey, updateApiKey } from "@/lib/api-keys/manage-api-keys";
import { keyResponse, updateKeyBody } from "@/lib/api-keys/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  PATCH: route(
    {
      auth: "session",
      feature: "apiKeys",
      account: "member",
      rateLimit: "writes",
      body: updateKeyBody,
      summary: "Rename an API key or change its limits",
      description:
        "Owner only (another account's key answers 404; acting as an organisation: its owner and admins any of its keys, a member the keys they made). A revoked key cannot be changed (409). Changes apply on every instance within 5 seconds.",
      tags: ["keys"],
      errors: [409],
      response: keyResponse,
    },
    ({ account, params, body }) => updateApiKey(keyScopeOf(account), params.id, body),
  ),
  DELETE: route(
    {
      auth: "session",
      feature: "apiKeys",
      account: "member",
      rateLimit: "writes",
      summary: "Revoke an API key (for good; it stops working on every instance within 5 seconds)",
      description:
        "Owner only (another account's key answers 404; acting as an organisation: its owner and admins any of its keys, a member the keys they made). Revoking a revoked key answers it unchanged.",
      tags: ["keys"],
      response: keyResponse,
    },
    async ({ account, params }) => ({ key: (await revokeApiKey(keyScopeOf(account), params.id, "user")).key }),
  ),
});
