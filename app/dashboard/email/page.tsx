import type { Metadata } from "next";
import { env } from "@/lib/config/env";
import { EMAIL_TYPES } from "@/lib/email/email-types";
import { allowedRecipientDomains } from "@/lib/email/recipient-policy";
import { EmailPanel } from "./email-panel";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Email" };

export default function EmailPage() {
  const e = env();
  return (
    <EmailPanel
      types={[...EMAIL_TYPES]}
      allowedDomains={allowedRecipientDomains()}
      // The test email endpoint and the local mailbox exist only outside production (403 / 404 there).
      devTools={!e.isProduction}
      localMailbox={!e.RESEND_API_KEY}
    />
  );
}
