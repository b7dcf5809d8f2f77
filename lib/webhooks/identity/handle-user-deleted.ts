import { db } from "@/lib/db/client";
import { deleteUser } from "@/lib/account/delete-user";

/** user.deleted: deletes the user and all their data. Unknown users are a no-op. */
export async function handleUserDeleted(data: { id: string }): Promise<string> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { externalId: data.id }, select: { id: true } });
  if (!user) return "user not found; nothing to delete";
  await deleteUser(user.id);
  return "user deleted";
}
