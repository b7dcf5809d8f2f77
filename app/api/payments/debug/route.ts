import { z } from "zod";
import { getPaymentsDebug } from "@/lib/billing/payments-debug";
import { env } from "@/lib/config/env";
import { methods, route } from "@/lib/http/route";
import { paymentsDebugResponse } from "@/lib/billing/schemas";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "optional",
      // Development only: in production the endpoint does not exist (404 to everyone).
      feature: () => !env().isProduction,
      summary: "Payment state and configuration for debugging (development only)",
      tags: ["payments"],
      query: z.object({ key: z.string().optional() }),
      errors: [401],
      response: paymentsDebugResponse,
    },
    ({ user, query }) => getPaymentsDebug({ userId: user?.id ?? null, key: query.key }),
  ),
});
