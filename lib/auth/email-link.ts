import { createHash, randomBytes } from "node:crypto";
import { safeRedirectPath } from "@/lib/config/public-url";
import { db } from "@/lib/db/client";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { sendEmail } from "@/lib/email/send-email";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { checkWindowLimit } from "@/lib/ratelimit";

/**
 * Sign-in by emailed link, with the JWT sessions (no session table): a link carries a random token
 * (32 bytes) of which only the SHA-256 is stored with the address and an expiry; it works once, for
 * 15 minutes, and the sign-in itself goes through next-auth (the "email-link" credentials provider,
 * lib/auth/options.ts) after the person clicks on the page the link opens (mail scanners that fetch
 * links do not spend it). Asking for a link answers the same whether or not the address has an
 * account (a first sign-in creates it): nothing tells a stranger which addresses are customers.
 */
export const EMAIL_LINK_TTL_MS = 15 * 60_000;
/** Links one address may be sent per hour (the per-client limit is the route's `email` category). */
export const EMAIL_LINK_PER_ADDRESS = { limit: 5, windowMs: 60 * 60_000 };

const hash = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

export async function requestEmailLink(input: { email: string; baseUrl: string; callbackUrl?: string }): Promise<void> {
  const email = normalizeEmail(input.email);
  const limit = await checkWindowLimit(`email_link:address:${hash(email)}`, EMAIL_LINK_PER_ADDRESS.limit, EMAIL_LINK_PER_ADDRESS.windowMs);
  if (limit && !limit.allowed) {
    const retryAfter = Math.max(1, limit.reset - Math.floor(Date.now() / 1000));
    throw new AppError("rate_limited", `Too many sign-in links for this address; retry after ${retryAfter} seconds`, {
      headers: { "Retry-After": String(retryAfter) },
    });
  }
  const token = randomBytes(32).toString("base64url");
  const prisma = await db();
  await prisma.emailSignInToken.create({ data: { email, tokenHash: hash(token), expiresAt: new Date(Date.now() + EMAIL_LINK_TTL_MS) } });
  if (Math.random() < 0.02) {
    void prisma.emailSignInToken.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - 86_400_000) } } }).catch(() => undefined);
  }
  // Everything in the fragment: a browser never sends it (no server log, trace or proxy sees the
  // token); the page reads it and posts it when the person clicks.
  const fragment = new URLSearchParams({ email, token });
  if (input.callbackUrl) fragment.set("callbackUrl", safeRedirectPath(input.callbackUrl));
  const link = new URL("/signin/email", `${input.baseUrl}/`);
  link.hash = fragment.toString();
  try {
    await sendEmail({
      to: email,
      subject: "Your sign-in link",
      type: "sign_in",
      text: `Sign in with this link (it works once, for 15 minutes):\n\n${link}\n\nIf you did not ask for it, ignore this email.`,
      html: `<p>Sign in with this link (it works once, for 15 minutes):</p><p><a href="${link.toString().replace(/&/g, "&amp;")}">Sign in</a></p><p>If you did not ask for it, ignore this email.</p>`,
    });
  } catch (error) {
    // sendEmail logged the cause and the setting to check (one line); the person gets what they can do.
    if (!isAppError(error)) log.error("sign-in link not sent", { error: String(error) });
    if (isAppError(error) && error.reason === "mail_transient") {
      throw new AppError(
        "unavailable",
        "This site's email is not going out right now, so the sign-in link could not be sent; try again in a few minutes, and if it keeps failing, contact the site's operator",
        {
          headers: { "Retry-After": "300" },
          reason: "mail_unavailable",
        },
      );
    }
    throw new AppError(
      "unavailable",
      "This site cannot send email right now, so sign-in links cannot be delivered; please contact the site's operator",
      { reason: "mail_unavailable" },
    );
  }
}

/**
 * Spends a link: true once for a token of this address that has not expired, false ever after. A
 * sign-in voids the address's other unused links too (an older link found later in the inbox, or
 * one a mail scanner copied, cannot sign in again).
 */
export async function consumeEmailLink(email: string, token: string): Promise<boolean> {
  if (!token || token.length > 200) return false;
  const prisma = await db();
  const address = normalizeEmail(email);
  const now = new Date();
  const { count } = await prisma.emailSignInToken.updateMany({
    where: { tokenHash: hash(token), email: address, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  if (count !== 1) return false;
  await prisma.emailSignInToken.updateMany({ where: { email: address, usedAt: null }, data: { usedAt: now } });
  return true;
}
