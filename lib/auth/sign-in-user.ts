import { ensureUser, type UserIdentity } from "@/lib/users/ensure-user";
import { applyDeliveriesKeptForUser } from "@/lib/webhooks/payment/run-payment-delivery";

/**
 * The user signing in (every sign-in method), created on their first sign-in with free-tier credits;
 * a new user's payments made before they registered (registration-first checkout) then apply.
 */
export async function signInUser(identity: UserIdentity) {
  const { user, created } = await ensureUser(identity);
  if (created) await applyDeliveriesKeptForUser(user);
  return user;
}
