import { listPayments } from "@/lib/billing/receipts/list-payments";
import { receiptsResponse } from "@/lib/billing/schemas";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      account: "admin",
      summary: "Payments of the account (receipts): what each bought, its amount, refunds and the provider's receipt",
      tags: ["payments"],
      errors: [403],
      response: receiptsResponse,
    },
    ({ account }) => listPayments(account.id),
  ),
});
