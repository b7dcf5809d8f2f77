import { db } from "@/lib/db/client";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { after, decodeCursor, page } from "./cursor";
import { heldBonusByAccount } from "./held-bonus";

/**
 * Finds organisations for an operator, newest first: a name or slug prefix, an organisation id, or
 * a member's email prefix. Each row: tier, balances, member count and owner.
 */
export async function searchOrganisations(input: { q?: string; cursor?: string; limit: number }) {
  const prisma = await db();
  const q = input.q?.trim() ?? "";
  const match = q
    ? {
        OR: [
          { name: { startsWith: q, mode: "insensitive" as const } },
          { slug: { startsWith: q.toLowerCase() } },
          { id: q },
          { members: { some: { user: { email: { startsWith: normalizeEmail(q) } } } } },
        ],
      }
    : {};
  const rows = await prisma.organisation.findMany({
    where: { AND: [match, after("createdAt", decodeCursor(input.cursor))] },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    include: {
      account: { select: { tier: true, creditBalance: { select: { subscriptionCredits: true } } } },
      members: { where: { role: "owner" }, include: { user: { select: { email: true } } } },
      _count: { select: { members: true } },
    },
  });
  const { items, nextCursor } = page(rows, input.limit, (r) => r.createdAt);
  const bonusOf = await heldBonusByAccount(items.map((o) => o.id));
  return {
    organisations: items.map((o) => ({
      id: o.id,
      name: o.name,
      slug: o.slug,
      tier: o.account.tier,
      owner: o.members[0]?.user.email ?? null,
      members: o._count.members,
      balances: { subscription: o.account.creditBalance?.subscriptionCredits ?? 0, bonus: bonusOf.get(o.id) ?? 0 },
      createdAt: o.createdAt.toISOString(),
    })),
    nextCursor,
  };
}
