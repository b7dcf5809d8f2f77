import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/generated/prisma/client";

/**
 * Who is told about an account by email: the person, or an organisation's owner and admins. Inside a
 * transaction pass it (`tx`): on the embedded database a query outside it would wait for it to end.
 */
export async function accountRecipients(accountId: string, tx?: Prisma.TransactionClient): Promise<string[]> {
  const prisma = tx ?? (await db());
  const rows = await prisma.$queryRaw<{ email: string | null }[]>`
    SELECT u.email FROM users u WHERE u.id = ${accountId} AND u.kind = 'person'
    UNION
    SELECT u.email FROM organisation_members m JOIN users u ON u.id = m.user_id
     WHERE m.organisation_id = ${accountId} AND m.role IN ('owner', 'admin')`;
  return rows.map((r) => r.email).filter((e): e is string => Boolean(e));
}
