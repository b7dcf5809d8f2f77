import { ensureUser } from "@/lib/users/ensure-user";
import { applyDeliveriesKeptForUser } from "../payment/run-payment-delivery";
import { fullName, primaryEmail, type IdentityUserData } from "./payload";
import { applyIdentityFields } from "./handle-user-updated";

/** user.created: creates the user with free-tier credits (or links an existing user with that email). */
export async function handleUserCreated(data: IdentityUserData): Promise<string> {
  const { user, created } = await ensureUser({
    externalId: data.id,
    email: primaryEmail(data),
    name: fullName(data),
    image: data.image_url ?? null,
  });
  if (data.banned || data.locked) await applyIdentityFields(user.id, data);
  if (created) await applyDeliveriesKeptForUser(user);
  return created ? "user created" : "user already existed; linked";
}
