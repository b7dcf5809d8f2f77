import { accountAdminRoute } from "@/lib/http/account-routes";
import { methods } from "@/lib/http/route";
import { listEvents } from "@/lib/outbound/list-events";
import { eventsResponse, listEventsQuery } from "@/lib/outbound/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: accountAdminRoute(
    {
      rateLimit: "reports",
      tags: ["webhook-endpoints"],
      query: listEventsQuery,
      summary: "The account's outbound events, newest first, by type and time, paged (cursor): each with where it went and how",
      response: eventsResponse,
    },
    ({ account, query }) => listEvents(account.id, query),
  ),
});
