import { z } from "zod";
import { getAiUsage } from "@/lib/credits";
import { methods, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

const usage = z.object({
  unlimited: z.boolean(),
  tier: z.string(),
  monthlyLimit: z.number(),
  remaining: z.number(),
  bonusCredits: z.number(),
  used: z.number(),
  resetAt: z.string().optional(),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      summary: "AI credit usage of the current user (unlimited in classic_saas mode)",
      tags: ["ai", "credits"],
      errors: [404],
      response: usage,
    },
    ({ user }) => getAiUsage(user.id),
  ),
});
