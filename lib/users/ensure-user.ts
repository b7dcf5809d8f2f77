import { db } from "@/lib/db/client";
import type { User } from "@/lib/generated/prisma/client";
import { initializeCredits } from "@/lib/credits/initialize-credits";
import { log } from "@/lib/log";
import { applyPendingPaymentDeliveries } from "@/lib/webhooks/payment/process-payment-webhook";

export interface UserIdentity {
  email?: string | null;
  name?: string | null;
  image?: string | null;
  /** Identity-provider user id (identity webhook). */
  externalId?: string | null;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Finds the user with this external id or email, or creates them with free-tier credits. Sign-in and
 * the identity webhook both come through here, so the same email is always one user. Safe under
 * concurrency: a lost creation race re-reads the winner.
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
    await afterUserCreated(user);
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

/**
 * Work that follows a user's creation, outside the creating transaction so a failure here never
 * loses the user. Later domains add their step here explicitly (for example, billing applies payment
 * events that arrived before the user registered).
 */
async function afterUserCreated(user: User): Promise<void> {
  const steps: Array<[string, (u: User) => Promise<unknown>]> = [
    ["apply pending payment deliveries", (u) => applyPendingPaymentDeliveries({ email: u.email })],
  ];
  for (const [name, step] of steps) {
    try {
      await step(user);
    } catch (error) {
      log.error("post-creation step failed", { userId: user.id, step: name, error });
    }
  }
}
