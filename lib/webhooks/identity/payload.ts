import { z } from "zod";

/** Identity events in Clerk's shape (DESIGN.md §4). */
const emailAddress = z.object({ id: z.string(), email_address: z.string() });

export const identityUserData = z.object({
  id: z.string().min(1),
  email_addresses: z.array(emailAddress).optional().default([]),
  primary_email_address_id: z.string().nullish(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  image_url: z.string().nullish(),
  banned: z.boolean().optional(),
  locked: z.boolean().optional(),
});

export const identityEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("user.created"), data: identityUserData }),
  z.object({ type: z.literal("user.updated"), data: identityUserData }),
  z.object({ type: z.literal("user.deleted"), data: z.object({ id: z.string().min(1) }).loose() }),
]);

export type IdentityEvent = z.infer<typeof identityEvent>;
export type IdentityUserData = z.infer<typeof identityUserData>;

export function primaryEmail(data: IdentityUserData): string | null {
  const primary = data.email_addresses.find((e) => e.id === data.primary_email_address_id) ?? data.email_addresses[0];
  return primary?.email_address ?? null;
}

export function fullName(data: IdentityUserData): string | null {
  const name = [data.first_name, data.last_name].filter(Boolean).join(" ").trim();
  return name || null;
}
