import { z } from "zod";
import { getCreditPreferences, setBonusCreditsAutoUse } from "@/lib/credits";
import { methods, route } from "@/lib/http/route";
import { creditPreferencesResponse, creditPreferencesUpdatedResponse } from "@/lib/credits/schemas";

export const dynamic = "force-dynamic";

const body = z.strictObject({ bonusCreditsAutoUse: z.boolean() });

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      rateLimit: "api",
      feature: "creditBased",
      summary: "Bonus credit auto-use preference",
      tags: ["credits"],
      errors: [404],
      response: creditPreferencesResponse,
    },
    ({ account }) => getCreditPreferences(account.id),
  ),
  PATCH: route(
    {
      auth: "session",
      account: "admin",
      rateLimit: "api",
      feature: "creditBased",
      body,
      summary: "Set bonus credit auto-use (403 when the per-user toggle feature is disabled)",
      tags: ["credits"],
      errors: [403, 404],
      response: creditPreferencesUpdatedResponse,
    },
    ({ account, body }) => setBonusCreditsAutoUse(account.id, body.bonusCreditsAutoUse),
  ),
});
