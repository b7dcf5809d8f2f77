import { recordOrganisationEvent } from "@/lib/audit/record-organisation-event";
import { randomBytes } from "node:crypto";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { toOrganisationView } from "./views";
import type { OrganisationView } from "./schemas";

/** Organisations one person may own at once (a bound on what one account can create). */
export const MAX_OWNED_ORGANISATIONS = 20;

function slugFrom(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 30)
    .replace(/-+$/, "");
  return `${base.length >= 3 ? base : "org"}-${randomBytes(3).toString("hex")}`;
}

/**
 * Creates an organisation owned by `userId`: its account row (kind "organisation": no email, no
 * sign-in), its empty wallet (an organisation has no free allocation: it buys a plan or credits), and
 * the owner's membership, in one transaction. A taken slug answers 409.
 */
export async function createOrganisation(
  userId: string,
  body: { name: string; slug?: string },
): Promise<{ organisation: OrganisationView }> {
  const prisma = await db();
  const slug = body.slug ?? slugFrom(body.name);
  if (await prisma.organisation.findUnique({ where: { slug }, select: { id: true } }))
    throw new AppError("conflict", `The slug "${slug}" is taken; choose another`);
  try {
    const org = await prisma.$transaction(async (tx) => {
      // Counted and created under the person's row lock: concurrent creations never pass the limit.
      await tx.$executeRaw`SELECT 1 FROM users WHERE id = ${userId}::text FOR UPDATE`;
      const owned = await tx.organisationMember.count({ where: { userId, role: "owner" } });
      if (owned >= MAX_OWNED_ORGANISATIONS)
        throw new AppError("forbidden", `You own ${MAX_OWNED_ORGANISATIONS} organisations, the most one person may own`);
      const account = await tx.user.create({ data: { kind: "organisation", name: body.name } });
      // Reset this month: the free tier's lazy rollover has nothing to apply to an organisation.
      await tx.creditBalance.create({ data: { userId: account.id, subscriptionCredits: 0, monthlyAllocation: 0, resetAt: new Date() } });
      const created = await tx.organisation.create({ data: { id: account.id, name: body.name, slug, createdBy: userId } });
      await tx.organisationMember.create({ data: { organisationId: account.id, userId, role: "owner" } });
      await recordOrganisationEvent(tx, {
        accountId: account.id,
        actorId: userId,
        action: "organisation.created",
        targetType: "organisation",
        targetId: account.id,
        details: { name: body.name, slug },
      });
      return created;
    });
    log.info("organisation created", { organisationId: org.id, userId });
    return { organisation: toOrganisationView(org, "owner") };
  } catch (error) {
    const e = error as { code?: string };
    if (e?.code === "P2002") throw new AppError("conflict", `The slug "${slug}" is taken; choose another`);
    throw error;
  }
}
