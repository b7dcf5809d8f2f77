import { randomUUID } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { z } from "zod";
import { env, signInMethods } from "@/lib/config/env";
import { authSecret } from "@/lib/config/auth-secret";
import { log } from "@/lib/log";
import { accountState } from "@/lib/users/account-state";
import { consumeEmailLink } from "./email-link";
import { consumeOperatorLink } from "./consume-operator-link";
import { revokeSession, SESSION_MAX_AGE_S } from "./revoke-session";
import { signInUser } from "./sign-in-user";
import { githubVerifiedEmail, profileVouchesForEmail, signInWithIdentity } from "./sign-in-with-identity";

const devEmail = z.email();
/** The provider of `npm run admin:sign-in-link`'s links; never offered on the sign-in page. */
export const OPERATOR_LINK_PROVIDER = "operator-link";
/** Thrown by the jwt callback for a session that was ended: next-auth then clears its cookie. */
const SESSION_ENDED = "session ended";

function describeAuthMetadata(metadata: unknown): Record<string, unknown> {
  const m = metadata as
    { message?: unknown; error?: { message?: unknown; name?: unknown }; providerId?: unknown; name?: unknown } | undefined;
  const error = metadata instanceof Error ? metadata : m?.error;
  return {
    ...(typeof (error as Error | undefined)?.message === "string"
      ? { message: (error as Error).message.slice(0, 500) }
      : typeof m?.message === "string"
        ? { message: m.message.slice(0, 500) }
        : {}),
    ...(typeof (error as Error | undefined)?.name === "string" ? { error: (error as Error).name } : {}),
    ...(typeof m?.providerId === "string" ? { provider: m.providerId } : {}),
  };
}

/**
 * next-auth v4 with JWT sessions and no database adapter. Every sign-in goes through signInUser, so
 * a user signing in and a user created by the identity webhook with the same email are one user.
 * The session exposes user.id and user.email.
 */

/** next-auth's warning codes, said as what to set. */
const SIGN_IN_WARNINGS: Record<string, string> = {
  NEXTAUTH_URL:
    "NEXTAUTH_URL is not set; set it to this site's public URL (e.g. https://app.example.com), which sign-in callbacks and mailed links are built from",
  NO_SECRET: "NEXTAUTH_SECRET is not set; set it to a random secret (openssl rand -base64 32) so sessions survive a restart",
  DEBUG_ENABLED: "next-auth debug output is on; switch it off in production",
  EXPERIMENTAL_API: "an experimental next-auth API is in use",
};

export function authOptions(): NextAuthOptions {
  const e = env();
  const providers: NextAuthOptions["providers"] = [];
  if (e.devLoginEnabled) {
    providers.push(
      CredentialsProvider({
        id: "dev",
        name: "Development sign-in",
        credentials: { email: { label: "Email", type: "email", placeholder: "you@example.com" } },
        async authorize(credentials) {
          const parsed = devEmail.safeParse(credentials?.email?.trim());
          if (!parsed.success) return null;
          const user = await signInUser({ email: parsed.data });
          if (user.lockedAt) return null;
          return { id: user.id, email: user.email, name: user.name };
        },
      }),
    );
  }
  if (signInMethods(e).includes("email")) {
    providers.push(
      CredentialsProvider({
        id: "email-link",
        name: "Email",
        credentials: { email: { label: "Email", type: "email" }, token: { label: "Token", type: "text" } },
        async authorize(credentials) {
          const parsed = devEmail.safeParse(credentials?.email?.trim());
          if (!parsed.success || !credentials?.token) return null;
          if (!(await consumeEmailLink(parsed.data, credentials.token))) return null;
          const user = await signInUser({ email: parsed.data });
          if (user.lockedAt) return null;
          // Following the link proved the inbox: the address is verified in this sign-in.
          return { id: user.id, email: user.email, name: user.name, emailVerified: true } as {
            id: string;
            email: string | null;
            name: string | null;
          };
        },
      }),
    );
  }
  if (e.ADMIN_EMAILS.length > 0) {
    // An operator's one-time link from `npm run admin:sign-in-link` (lib/auth/operator-link.ts): the
    // first way into the console with no mail provider or OAuth app. Not shown on the sign-in page.
    providers.push(
      CredentialsProvider({
        id: OPERATOR_LINK_PROVIDER,
        name: "Operator link",
        credentials: { email: { label: "Email", type: "email" }, token: { label: "Token", type: "text" } },
        async authorize(credentials) {
          const parsed = devEmail.safeParse(credentials?.email?.trim());
          if (!parsed.success || !credentials?.token) return null;
          if (!(await consumeOperatorLink(parsed.data, credentials.token))) return null;
          const user = await signInUser({ email: parsed.data });
          if (user.lockedAt) return null;
          // Minted with the server's secret for an ADMIN_EMAILS address: the address is the operator's.
          return { id: user.id, email: user.email, name: user.name, emailVerified: true } as {
            id: string;
            email: string | null;
            name: string | null;
          };
        },
      }),
    );
  }
  if (e.AUTH_GITHUB_ID && e.AUTH_GITHUB_SECRET) {
    providers.push(
      GitHubProvider({
        clientId: e.AUTH_GITHUB_ID,
        clientSecret: e.AUTH_GITHUB_SECRET,
        // GitHub's profile email may be missing or not the verified one: the account's email is its
        // primary address, and it counts as verified only when GitHub's address list says so.
        userinfo: {
          url: "https://api.github.com/user",
          async request({ client, tokens }) {
            const profile = await client.userinfo(tokens.access_token as string);
            const res = await fetch("https://api.github.com/user/emails", {
              headers: { Authorization: `Bearer ${tokens.access_token}`, Accept: "application/vnd.github+json" },
            });
            const verified = res.ok ? githubVerifiedEmail(await res.json()) : null;
            return { ...profile, email: verified ?? profile.email, email_verified: verified !== null };
          },
        },
      }),
    );
  }
  if (e.AUTH_GOOGLE_ID && e.AUTH_GOOGLE_SECRET) {
    providers.push(GoogleProvider({ clientId: e.AUTH_GOOGLE_ID, clientSecret: e.AUTH_GOOGLE_SECRET }));
  }
  if (e.AUTH_OIDC_ISSUER && e.AUTH_OIDC_ID && e.AUTH_OIDC_SECRET) {
    providers.push({
      id: "oidc",
      name: e.AUTH_OIDC_NAME ?? "Single sign-on",
      type: "oauth",
      wellKnown: `${e.AUTH_OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId: e.AUTH_OIDC_ID,
      clientSecret: e.AUTH_OIDC_SECRET,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      checks: ["pkce", "state"],
      profile(profile: { sub: string; email?: string; name?: string; picture?: string }) {
        return { id: profile.sub, email: profile.email, name: profile.name, image: profile.picture };
      },
    });
  }

  return {
    secret: authSecret(),
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
    providers,
    pages: { signIn: "/signin" },
    // next-auth's own messages as our JSON log lines (not its plain-text lines with stacks on stderr):
    // the code, the message and the provider, never the raw metadata (it can hold tokens).
    logger: {
      error(code, metadata) {
        // A revoked session presented again: next-auth clears its cookie; nothing went wrong.
        if (code === "JWT_SESSION_ERROR" && describeAuthMetadata(metadata).message === SESSION_ENDED) {
          log.info("a revoked session was presented; its cookie was cleared");
          return;
        }
        log.error("sign-in error", { code, ...describeAuthMetadata(metadata) });
      },
      warn(code) {
        log.warn(`sign-in warning: ${SIGN_IN_WARNINGS[code] ?? code}`, { code });
      },
      debug(code) {
        log.debug("sign-in debug", { code });
      },
    },
    callbacks: {
      async signIn({ user, account, profile }) {
        if (!account || account.provider === "dev" || account.provider === "email-link" || account.provider === OPERATOR_LINK_PROVIDER)
          return true;
        // OAuth/OIDC: the identity's user; a new identity is linked by email only when the provider
        // verified that email (lib/auth/sign-in-with-identity.ts). A refusal shows the sign-in page.
        const outcome = await signInWithIdentity({
          provider: account.provider,
          providerAccountId: account.providerAccountId,
          email: user.email,
          emailVerified: profileVouchesForEmail(profile),
          name: user.name,
          image: user.image,
        });
        if (!outcome.ok) return `/signin?error=${outcome.reason}`;
        Object.assign(user, { id: outcome.user.id, email: outcome.user.email, emailVerified: outcome.emailVerified });
        return true;
      },
      async jwt({ token, user, account }) {
        if (user) {
          token.sub = user.id;
          token.email = user.email;
        }
        if (account) {
          // How this session signed in, when, and whether its email is one the provider verified in
          // this sign-in (never for the dev sign-in, which takes any address typed in): the operator
          // check relies on it (lib/auth/resolve-operator.ts), and a revocation ends sessions signed
          // in before it (lib/auth/session.ts).
          token.authMethod = account.provider;
          token.emailVerified = account.provider !== "dev" && (user as { emailVerified?: unknown } | undefined)?.emailVerified === true;
          token.signedInAt = Date.now();
          // This session's id: signing out revokes it server-side (lib/auth/revoke-session.ts).
          token.sid = randomUUID();
        } else {
          if (typeof token.signedInAt !== "number" && typeof token.iat === "number") {
            // A token from before signedInAt existed: a refresh keeps its first issue time, not a new one.
            token.signedInAt = token.iat * 1000;
          }
          // A refresh of a session that was signed out, ended everywhere, or whose user is gone: no
          // new cookie (next-auth clears it and answers no session).
          const mark = { signedInAt: token.signedInAt as number | undefined, sessionId: token.sid as string | undefined };
          if (typeof token.sub === "string" && !(await accountState(token.sub, mark))) throw new Error(SESSION_ENDED);
        }
        return token;
      },
      async session({ session, token }) {
        session.user = { ...session.user, id: token.sub ?? "", email: (token.email as string | undefined) ?? null };
        return session;
      },
    },
    events: {
      // Signing out ends the session server-side, not only its cookie in this browser.
      async signOut({ token }) {
        if (typeof token?.sub !== "string") return;
        await revokeSession({ userId: token.sub, sessionId: typeof token.sid === "string" ? token.sid : null }).catch((error) =>
          log.error("signing a session out failed", { error: (error as Error).message }),
        );
      },
    },
  };
}
