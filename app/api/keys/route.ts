import { methods, route } from "@/lib/http/route";
import { createApiKey, listApiKeys } from "@/lib/api-keys/manage-api-keys";
import { createKeyBody, keyCreatedResponse, keysListResponse } from "@/lib/api-keys/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      feature: "apiKeys",
      rateLimit: "api",
      summary: "Your API keys (never their secrets)",
      tags: ["keys"],
      response: keysListResponse,
    },
    ({ user }) => listApiKeys(user.id),
  ),
  POST: route(
    {
      auth: "session",
      feature: "apiKeys",
      rateLimit: "api",
      body: createKeyBody,
      summary: "Create an API key for the OpenAI-compatible API (/v1); the secret is in this answer only",
      description: "Limits: models, call kinds, a credit budget per day, month or in total, requests per minute, expiry. At most 50 active keys.",
      tags: ["keys"],
      errors: [403],
      response: keyCreatedResponse,
    },
    ({ user, body }) => createApiKey(user.id, body),
  ),
});
