import { db } from "@/lib/db/client";
import { requireMember } from "./membership";
import type { ActingAccount } from "./roles";

/**
 * An account as the switcher shows it. Given an acting account: it, with its name. Given a wish
 * (`wanted`: an organisation's id, or null for the person's own): checked first (404 when the person
 * is not a member).
 */
export async function describeAccount(input: ActingAccount | { userId: string; wanted: string | null }) {
  let account: ActingAccount;
  if ("wanted" in input) {
    account =
      !input.wanted || input.wanted === input.userId
        ? { id: input.userId, kind: "person", role: "owner", memberId: null }
        : await requireMember(input.wanted, input.userId);
  } else account = input;
  const prisma = await db();
  const row = await prisma.user.findUnique({ where: { id: account.id }, select: { name: true, email: true } });
  return { account: { id: account.id, kind: account.kind, name: row?.name ?? row?.email ?? null, role: account.role } };
}
