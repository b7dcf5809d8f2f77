import { flags } from "@/lib/config/flags";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

export interface CreditPreferences {
  bonusCreditsAutoUse: boolean;
  userToggleEnabled: boolean;
}

/** The user's bonus auto-use preference and whether the per-user toggle feature is on system-wide. */
export async function getCreditPreferences(userId: string): Promise<CreditPreferences> {
  const prisma = await db();
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { bonusCreditsAutoUse: true } });
  if (!user) throw new AppError("not_found", "User not found");
  return { bonusCreditsAutoUse: user.bonusCreditsAutoUse, userToggleEnabled: flags().creditsUserToggle };
}

/** Sets the user's bonus auto-use; forbidden while the per-user toggle feature is off (bonus credits are then always used). */
export async function setBonusCreditsAutoUse(
  userId: string,
  enabled: boolean,
): Promise<{ success: boolean; bonusCreditsAutoUse: boolean }> {
  if (!flags().creditsUserToggle) {
    throw new AppError("forbidden", "The bonus credit auto-use toggle is disabled: bonus credits are always used automatically");
  }
  const prisma = await db();
  const { count } = await prisma.user.updateMany({ where: { id: userId }, data: { bonusCreditsAutoUse: enabled } });
  if (count === 0) throw new AppError("not_found", "User not found");
  return { success: true, bonusCreditsAutoUse: enabled };
}
