import { methods, route } from "@/lib/http/route";
import { revokeApiKey, updateApiKey } from "@/lib/api-keys/manage-api-keys";
import { keyResponse, updateKeyBody } from "@/lib/api-keys/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  PATCH: route(
    {
      auth: "session",
      feature: "apiKeys",
      rateLimit: "api",
      body: updateKeyBody,
      summary: "Rename an API key or change its limits",
      description: "Owner only (another user's key answers 404). A revoked key cannot be changed (409). Changes apply on every instance within 5 seconds.",
      tags: ["keys"],
      errors: [409],
      response: keyResponse,
    },
    ({ user, params, body }) => updateApiKey(user.id, params.id, body),
  ),
  DELETE: route(
    {
      auth: "session",
      feature: "apiKeys",
      rateLimit: "api",
      summary: "Revoke an API key (for good; it stops working on every instance within 5 seconds)",
      description: "Owner only (another user's key answers 404). Revoking a revoked key answers it unchanged.",
      tags: ["keys"],
      response: keyResponse,
    },
    async ({ user, params }) => ({ key: (await revokeApiKey(user.id, params.id, "user")).key }),
  ),
});
