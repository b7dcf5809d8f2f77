import { env } from "@/lib/config/env";

/**
 * Recipient policy of POST /api/email/send (so it is not an open relay): a signed-in user may send only
 * to their own account address, or to an address whose domain is listed in
 * EMAIL_ALLOWED_RECIPIENT_DOMAINS (comma-separated, exact domain match, e.g. "example.com,acme.io").
 */
export function allowedRecipientDomains(): string[] {
  return (env().EMAIL_ALLOWED_RECIPIENT_DOMAINS ?? "")
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
    .filter(Boolean);
}

export function isRecipientAllowed(to: string, ownEmail: string | null): boolean {
  const address = to.trim().toLowerCase();
  if (ownEmail && address === ownEmail.trim().toLowerCase()) return true;
  const at = address.lastIndexOf("@");
  if (at < 0) return false;
  return allowedRecipientDomains().includes(address.slice(at + 1));
}
