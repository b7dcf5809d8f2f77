import { EnvError, parseEnv, signInMethods, withEnvForChecks } from "@/lib/config/env";
import { checkAiConfig } from "@/lib/ai/check-ai-config";
import { missingPricingSettings } from "@/lib/config/pricing";

/**
 * The one configuration check a server runs before it listens (scripts/preflight.ts in the standalone
 * server, lib/server/start-server.ts under `next dev`): every setting (JSON ones parsed and checked by
 * shape), the rules between settings, the pricing catalog a real payment provider needs, and the AI
 * configuration (every model in use priced and served). Every problem in one list, never values; a
 * setting that is itself invalid is left out of the later checks, so they report what else is wrong
 * instead of stopping at it.
 */
export function configurationProblems(source: Record<string, string | undefined> = process.env): string[] {
  const problems: string[] = [];
  let invalid: string[] = [];
  try {
    parseEnv(source);
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    problems.push(...error.problems);
    invalid = error.invalid;
  }
  const more = withEnvForChecks(source, invalid, (e) => {
    const found: string[] = [];
    if (e.isProduction && e.AUTH_DEV_LOGIN === "true" && !e.AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION) {
      found.push(
        "AUTH_DEV_LOGIN: true lets anyone sign in as any email address; in production it also needs AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION=true (a closed demo only), or use a real sign-in method",
      );
    }
    if (e.isProduction && signInMethods(e).length === 0) {
      // Every way out, each in full (NEXTAUTH_URL with the mailed links): one start says all of it.
      found.push(
        `Sign-in: no sign-in method is configured for production; set one of: RESEND_API_KEY (e.g. re_123...; sign-in by emailed link${e.NEXTAUTH_URL ? "" : ", with NEXTAUTH_URL=https://app.example.com, the public address links are built from"}); AUTH_GITHUB_ID and AUTH_GITHUB_SECRET; AUTH_GOOGLE_ID and AUTH_GOOGLE_SECRET; AUTH_OIDC_ISSUER, AUTH_OIDC_ID and AUTH_OIDC_SECRET; or, for a closed demo only (anyone can then sign in as any address), AUTH_DEV_LOGIN=true with AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION=true. Operators in ADMIN_EMAILS can always get a one-time link with \`npm run admin:sign-in-link -- you@example.com\``,
      );
    }
    if (signInMethods(e).includes("email") && !e.NEXTAUTH_URL && e.appEnv !== "development") {
      found.push(
        "NEXTAUTH_URL: required for sign-in by emailed link (set it to this site's public URL, e.g. https://app.example.com): links are built from it, never from a request's Host header",
      );
    }
    const stripe = e.PAYMENT_PROVIDER === "stripe";
    if (e.isProduction && (e.LEMONSQUEEZY_API_KEY || (stripe && e.STRIPE_SECRET_KEY))) {
      const missing = missingPricingSettings().filter((name) => !name.startsWith("PRICING_CONFIG"));
      if (missing.length)
        found.push(
          stripe
            ? `PRICING_CONFIG: Stripe needs the account's own price ids for ${missing.join(", ")} (docs/DEPLOY.md, "Stripe")`
            : `PRICING_CONFIG: Lemon Squeezy needs the store's own variant ids for ${missing.join(", ")} (docs/DEPLOY.md, "Lemon Squeezy")`,
        );
    }
    found.push(...checkAiConfig().problems);
    return found;
  });
  for (const problem of more) if (!problems.includes(problem)) problems.push(problem);
  return problems;
}

/** The list as a server prints it before exiting. */
export function describeProblems(problems: string[]): string {
  return `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}\nFix these settings (see .env.example) and start again.`;
}
