import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import GoogleProvider from "next-auth/providers/google";
import { z } from "zod";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { authSecret } from "@/lib/config/auth-secret";
import { signInUser } from "./sign-in-user";

const devEmail = z.email();

/**
 * next-auth v4 with JWT sessions and no database adapter. Every sign-in goes through signInUser, so
 * a user signing in and a user created by the identity webhook with the same email are one user.
 * The session exposes user.id and user.email.
 */
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
  if (e.AUTH_GITHUB_ID && e.AUTH_GITHUB_SECRET) {
    providers.push(GitHubProvider({ clientId: e.AUTH_GITHUB_ID, clientSecret: e.AUTH_GITHUB_SECRET }));
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
    session: { strategy: "jwt", maxAge: 30 * 24 * 60 * 60 },
    providers,
    pages: { signIn: "/signin" },
    callbacks: {
      async signIn({ user, account }) {
        if (!account || account.provider === "dev") return true;
        // OAuth/OIDC: link the identity to our user (by email), creating the user once.
        if (!user.email) return false;
        const ours = await signInUser({ email: user.email, name: user.name, image: user.image });
        if (ours.lockedAt) return false;
        const prisma = await db();
        await prisma.account.upsert({
          where: { provider_providerAccountId: { provider: account.provider, providerAccountId: account.providerAccountId } },
          create: { userId: ours.id, provider: account.provider, providerAccountId: account.providerAccountId },
          update: {},
        });
        user.id = ours.id;
        return true;
      },
      async jwt({ token, user, account, profile }) {
        if (user) {
          token.sub = user.id;
          token.email = user.email;
        }
        if (account) {
          // How this session signed in, and whether the provider vouches for the email (OIDC and
          // Google say so in email_verified; GitHub gives its verified primary address). The dev
          // sign-in takes any address typed in: never verified (lib/admin/resolve-operator.ts).
          token.authMethod = account.provider;
          token.emailVerified = account.provider !== "dev" && (profile as { email_verified?: unknown } | undefined)?.email_verified !== false;
        }
        return token;
      },
      async session({ session, token }) {
        session.user = { ...session.user, id: token.sub ?? "", email: (token.email as string | undefined) ?? null };
        return session;
      },
    },
  };
}
