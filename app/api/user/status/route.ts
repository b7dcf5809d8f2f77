import { z } from "zod";
import { methods, route } from "@/lib/http/route";
import { getUserStatus } from "@/lib/users/user-status";

export const dynamic = "force-dynamic";

const userStatus = z.object({
  status: z.enum(["free", "trialing", "active_subscriber", "cancelled", "past_due", "unpaid", "paused"]),
  tier: z.string(),
  billingPeriod: z.string(),
  isTrial: z.boolean(),
  needsAction: z.boolean(),
  isLocked: z.boolean(),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      rateLimit: "api",
      cache: "privateFiveMinutes",
      summary: "Current user's subscription status",
      tags: ["user"],
      response: userStatus,
    },
    ({ user }) => getUserStatus(user.id),
  ),
});
