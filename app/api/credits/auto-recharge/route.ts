import { getAutoRecharge, updateAutoRecharge } from "@/lib/billing/auto-recharge/auto-recharge-settings";
import { autoRechargeBody, autoRechargeResponse } from "@/lib/billing/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "admin",
      rateLimit: null,
      summary: "Auto-recharge of the account: its settings, the saved card, the packs to choose from and this month's top-ups",
      tags: ["payments"],
      errors: [403],
      response: autoRechargeResponse,
    },
    ({ account }) => getAutoRecharge(account.id),
  ),
  PUT: route(
    {
      auth: "session",
      account: "admin",
      rateLimit: "writes",
      body: autoRechargeBody,
      summary:
        "Change auto-recharge (Stripe only): when a charge leaves the balance under the threshold, the pack is bought with the saved card",
      description:
        "One top-up per crossing (claimed in the charge's own transaction), paid off the request path, within the month's count and amount. A declined card or one that needs the cardholder pauses it, emails the owners and sends credits.auto_recharge_failed; saving it on again resumes it. 409 without Stripe or without a saved card.",
      tags: ["payments"],
      errors: [400, 403, 409],
      response: autoRechargeResponse,
    },
    ({ account, user, body }) => updateAutoRecharge(account.id, user.id, body),
  ),
});
