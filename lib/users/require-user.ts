import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { User } from "@/lib/generated/prisma/client";

/** The signed-in user's record; 404 "User not found" when the session outlived the user. */
export async function requireUser(userId: string): Promise<User> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: userId } });
  if (!user) throw new AppError("not_found", "User not found");
  return user;
}
