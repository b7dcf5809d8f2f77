import { z } from "zod";

/** GET /api/user/status (SPEC §2 "User status"; each status value is described in user-status.ts). */
export const userStatusResponse = z.object({
  status: z.enum(["free", "trialing", "active_subscriber", "cancelled", "past_due", "unpaid", "paused"]),
  tier: z.string(),
  billingPeriod: z.string(),
  isTrial: z.boolean(),
  needsAction: z.boolean(),
  isLocked: z.boolean(),
});

/** POST /api/user/sign-out-everywhere: sessions signed in at or before this time have ended. */
export const signOutEverywhereResponse = z.object({ sessionsRevokedAt: z.string() });
