import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { ensureUser } from "@/lib/users/ensure-user";
import { applyDeliveriesKeptForUser } from "../payment/run-payment-delivery";
import { fullName, primaryEmail, type IdentityUserData } from "./payload";

/** Copies email, name and the lock state (banned/locked) from the identity provider onto the user. */
export async function applyIdentityFields(userId: string, data: IdentityUserData): Promise<void> {
  const prisma = await db();
  const email = primaryEmail(data);
  const locked = Boolean(data.banned || data.locked);
  const current = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const patch: { email?: string; name?: string | null; lockedAt?: Date | null; lockReason?: string | null } = {
    name: fullName(data) ?? current.name,
  };
  if (email) {
    const normalized = normalizeEmail(email);
    const owner = await prisma.user.findUnique({ where: { email: normalized } });
    if (!owner || owner.id === userId) patch.email = normalized;
    else log.warn("identity email belongs to another user; email not changed", { userId });
  }
  if (locked && !current.lockedAt) {
    patch.lockedAt = new Date();
    patch.lockReason = data.banned ? "banned by identity provider" : "locked by identity provider";
  } else if (!locked && current.lockReason?.endsWith("by identity provider")) {
    patch.lockedAt = null;
    patch.lockReason = null;
  }
  await prisma.user.update({ where: { id: userId }, data: patch });
}

/** user.updated: updates email and name (creates the user if its user.created never arrived). */
export async function handleUserUpdated(data: IdentityUserData): Promise<string> {
  const prisma = await db();
  const existing = await prisma.user.findUnique({ where: { externalId: data.id } });
  if (!existing) {
    const { user, created } = await ensureUser({ externalId: data.id, email: primaryEmail(data), name: fullName(data) });
    await applyIdentityFields(user.id, data);
    if (created) await applyDeliveriesKeptForUser(user);
    return "user created from update";
  }
  await applyIdentityFields(existing.id, data);
  return "user updated";
}
