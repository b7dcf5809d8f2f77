import { activeAccountBody, activeAccountResponse } from "@/lib/organisations/schemas";
import { describeAccount } from "@/lib/organisations/describe-account";
import { activeAccountCookie } from "@/lib/http/active-account";
import { orgRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { env } from "@/lib/config/env";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: orgRoute(
    {
      rateLimit: null,
      account: "member",
      summary: "The account this session acts for: your own, or an organisation's",
      description: "403 when the session names an organisation you no longer belong to (switch with PUT).",
      response: activeAccountResponse,
    },
    ({ account }) => describeAccount(account),
  ),
  PUT: orgRoute(
    {
      rateLimit: null,
      body: activeAccountBody,
      summary: "Switch the account this session acts for (the dashboard's account switcher)",
      description:
        "accountId: an organisation you belong to, or null for your own. Sets the active-account cookie; AI calls, keys, credits and billing then act for that account, checked on every request. API clients may instead send X-Account-Id per request.",
      response: activeAccountResponse,
    },
    async ({ user, body, req, setHeader }) => {
      const answer = await describeAccount({ userId: user.id, wanted: body.accountId });
      setHeader(
        "set-cookie",
        activeAccountCookie(
          user.id,
          answer.account.kind === "organisation" ? answer.account.id : null,
          env().isProduction || new URL(req.url).protocol === "https:",
        ),
      );
      return answer;
    },
  ),
});
