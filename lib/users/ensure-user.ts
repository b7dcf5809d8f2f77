import { db } from "@/lib/db/client";
import type { User } from "@/lib/generated/prisma/client";
import { initializeCredits } from "@/lib/credits/initialize-credits";
import { log } from "@/lib/log";
import { normalizeEmail } from "@/lib/email/normalize-email";

export interface UserIdentity {
  email?: string | null;
  name?: string | null;
  image?: string | null;
  /** Identity-provider user id (identity webhook). */
  externalId?: string | null;
}

/**
 * Finds the user with this external id or email, or creates them with free-tier credits. Sign-in and
 * the identity webhook both come through here, so the same email is always one user. Safe under
 * concurrency: a lost creation race re-reads the winner. A caller that creates a user (`created`)
 * then applies the payment deliveries kept for that email (lib/webhooks/payment/run-payment-delivery.ts,
 * applyDeliveriesKeptForUser): users sit below payments and never reach up to them.
 */
export async function ensureUser(identity: UserIdentity): Promise<{ user: User; created: boolean }> {
  const prisma = await db();
  const email = identity.email ? normalizeEmail(identity.email) : null;
  const externalId = identity.externalId ?? null;
  if (!email && !externalId) throw new Error("ensureUser needs an email or an external id");

  const find = () =>
    prisma.user.findFirst({
      where: { OR: [...(externalId ? [{ externalId }] : []), ...(email ? [{ email }] : [])] },
      orderBy: { createdAt: "asc" },
    });

  const existing = await find();
  if (existing) {
    const patch: { externalId?: string; name?: string; image?: string } = {};
    if (externalId && !existing.externalId) patch.externalId = externalId;
    if (identity.name && !existing.name) patch.name = identity.name;
    if (identity.image && !existing.image) patch.image = identity.image;
    const user = Object.keys(patch).length ? await prisma.user.update({ where: { id: existing.id }, data: patch }) : existing;
    return { user, created: false };
  }

  try {
    const user = await prisma.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: { email, externalId, name: identity.name ?? null, image: identity.image ?? null },
      });
      await initializeCredits(tx, created.id, "free");
      return created;
    });
    log.info("user created", { userId: user.id });
    return { user, created: true };
  } catch (error) {
    // Unique violation: a concurrent request created the same user first.
    if ((error as { code?: string }).code === "P2002") {
      const winner = await find();
      if (winner) return { user: winner, created: false };
    }
    throw error;
  }
}
