import { db } from "@/lib/db/client";
import type { User } from "@/lib/generated/prisma/client";
import { normalizeEmail } from "@/lib/email/normalize-email";
import { log } from "@/lib/log";
import { signInUser } from "./sign-in-user";

/** An identity an OAuth/OIDC provider asserts after a completed sign-in. */
export interface ProviderIdentity {
  provider: string;
  providerAccountId: string;
  email?: string | null;
  /** True only when the provider says it verified this email (a missing claim is not a yes). */
  emailVerified: boolean;
  name?: string | null;
  image?: string | null;
}

/** Why a sign-in was refused: the sign-in page's `error` parameter (app/signin/page.tsx). */
export type IdentityRefusal = "EmailNotVerified" | "EmailMissing" | "AccountLocked";

export type IdentitySignIn = { ok: true; user: User; emailVerified: boolean } | { ok: false; reason: IdentityRefusal };

/**
 * The user an OAuth/OIDC identity signs in as. An identity already linked signs in as its user,
 * whatever email it shows now. A new identity is linked by email only when the provider vouches for
 * that email: otherwise anyone able to set an unverified address at some provider would take over
 * the account that owns it (or claim the address before its owner arrives), so nothing is created
 * and the sign-in is refused. `emailVerified` tells whether the session's email is one the provider
 * verified in this sign-in (the operator check relies on it).
 */
export async function signInWithIdentity(identity: ProviderIdentity): Promise<IdentitySignIn> {
  const prisma = await db();
  const email = identity.email ? normalizeEmail(identity.email) : null;
  const linked = await prisma.account.findUnique({
    where: { provider_providerAccountId: { provider: identity.provider, providerAccountId: identity.providerAccountId } },
    include: { user: true },
  });
  if (linked) {
    if (linked.user.lockedAt) return { ok: false, reason: "AccountLocked" };
    return { ok: true, user: linked.user, emailVerified: identity.emailVerified && email !== null && email === linked.user.email };
  }
  if (!email) return { ok: false, reason: "EmailMissing" };
  if (!identity.emailVerified) {
    log.warn("sign-in refused: the provider did not verify the email", { provider: identity.provider });
    return { ok: false, reason: "EmailNotVerified" };
  }
  const user = await signInUser({ email, name: identity.name, image: identity.image });
  if (user.lockedAt) return { ok: false, reason: "AccountLocked" };
  // A concurrent first sign-in of the same identity may have linked it already: the pair is unique.
  await prisma.account.upsert({
    where: { provider_providerAccountId: { provider: identity.provider, providerAccountId: identity.providerAccountId } },
    create: { userId: user.id, provider: identity.provider, providerAccountId: identity.providerAccountId },
    update: {},
  });
  log.info("sign-in identity linked", { userId: user.id, provider: identity.provider });
  return { ok: true, user, emailVerified: true };
}

/**
 * Whether the provider's profile vouches for its email: OIDC and Google send `email_verified`
 * (some issuers as the string "true"); our GitHub profile sets it from GitHub's list of verified
 * addresses. Absent or anything else: not verified.
 */
export function profileVouchesForEmail(profile: unknown): boolean {
  const claim = (profile as { email_verified?: unknown } | null | undefined)?.email_verified;
  return claim === true || claim === "true";
}

export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/**
 * The address GitHub vouches for: the primary one if verified, else none. Any other verified address
 * is the user's too, but the primary is the one they chose to be reached at.
 */
export function githubVerifiedEmail(emails: unknown): string | null {
  if (!Array.isArray(emails)) return null;
  const primary = (emails as Partial<GitHubEmail>[]).find((e) => e && e.primary === true);
  return primary && primary.verified === true && typeof primary.email === "string" ? primary.email : null;
}
