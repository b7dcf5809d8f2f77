import { cancelUserSubscriptions } from "@/lib/billing/subscriptions/cancel-user-subscriptions";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { releaseOrganisationsOf } from "@/lib/organisations/release-organisations";
import { deleteUserFiles } from "@/lib/storage/delete-user-files";
import { forgetUser } from "@/lib/users/account-state";

/**
 * Deletes a user and everything they own. Database rows go by cascade in one statement; work outside
 * the database (stored objects) runs first, as explicit steps, so nothing is orphaned.
 */
export async function deleteUser(userId: string): Promise<void> {
  const steps: Array<[string, (userId: string) => Promise<unknown>]> = [
    ["storage", deleteUserFiles],
    ["billing", cancelUserSubscriptions],
    ["organisations", releaseOrganisationsOf],
  ];
  for (const [name, step] of steps) {
    try {
      await step(userId);
    } catch (error) {
      log.error("user deletion step failed", { userId, step: name, error });
    }
  }
  const prisma = await db();
  await prisma.user.deleteMany({ where: { id: userId } });
  forgetUser(userId);
  log.info("user deleted", { userId });
}
