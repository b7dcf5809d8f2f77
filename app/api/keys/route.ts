import { methods, route } from "@/lib/http/route";
import { createApiKey, keyScopeOf, listApiKeys } from "@/lib/api-keys/manage-api-keys";
import { createKeyBody, keyCreatedResponse, keysListResponse } from "@/lib/api-keys/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      feature: "apiKeys",
      rateLimit: null,
      account: "member",
      summary: "Your API keys (never their secrets)",
      description: "Acting as an organisation: its keys (a member sees the keys they made).",
      tags: ["keys"],
      response: keysListResponse,
    },
    ({ account }) => listApiKeys(keyScopeOf(account)),
  ),
  POST: route(
    {
      auth: "session",
      feature: "apiKeys",
      rateLimit: "writes",
      body: createKeyBody,
      summary: "Create an API key for the OpenAI-compatible API (/v1); the secret is in this answer only",
      account: "member",
      description:
        "Limits: models, call kinds, a credit budget per day, month or in total, requests per minute, expiry. At most 50 active keys per account. Acting as an organisation: the key belongs to it and its calls charge its wallet, counted against your caps.",
      tags: ["keys"],
      errors: [403],
      response: keyCreatedResponse,
    },
    ({ account, body }) => createApiKey(keyScopeOf(account), body),
  ),
});
