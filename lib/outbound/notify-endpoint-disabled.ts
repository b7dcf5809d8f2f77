import { mailedLinkBase } from "@/lib/config/public-url";
import { db } from "@/lib/db/client";
import { sendEmail } from "@/lib/email/send-email";
import { accountRecipients } from "./account-recipients";

/** Tells an endpoint's owners that it was switched off after a day of failed deliveries, and how to turn it back on. */
export async function notifyEndpointDisabled(endpointId: string): Promise<void> {
  const prisma = await db();
  const endpoint = await prisma.webhookEndpoint.findUnique({ where: { id: endpointId } });
  if (!endpoint) return;
  const link = `${mailedLinkBase()}/dashboard/webhooks`;
  const text = `Your webhook endpoint ${endpoint.url} failed every delivery for 3 days and was disabled: ${endpoint.disabledReason ?? ""}\n\nIts events wait for it. Fix the receiver, then enable it again (and replay what failed) on ${link}\n`;
  for (const to of await accountRecipients(endpoint.accountId)) {
    await sendEmail({ to, type: "notification", subject: "A webhook endpoint was disabled", text });
  }
}
