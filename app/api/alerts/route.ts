import { methods, route } from "@/lib/http/route";
import { setAlertSettings } from "@/lib/spend-alerts/alert-settings";
import { getAlerts } from "@/lib/spend-alerts/list-firings";
import { alertSettingsBody, alertsResponse, alertsUpdatedResponse } from "@/lib/spend-alerts/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "member",
      rateLimit: null,
      summary: "Spend alerts of the account the session acts for: thresholds, low-balance level, email, and the last alerts that fired",
      description:
        "Defaults until changed: 80% and 100% of the monthly allocation, under 50 credits, by email. Each fires once per period (the allocation cycle; for low balance and depletion, until the next top-up).",
      tags: ["alerts"],
      response: alertsResponse,
    },
    ({ account }) => getAlerts(account.id),
  ),
  PUT: route(
    {
      auth: "session",
      account: "admin",
      rateLimit: "writes",
      body: alertSettingsBody,
      summary: "Change the spend alerts (an organisation's: owner and admins)",
      tags: ["alerts"],
      errors: [403],
      response: alertsUpdatedResponse,
    },
    ({ account, body }) => setAlertSettings(account.id, body),
  ),
});
