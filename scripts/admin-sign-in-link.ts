/**
 * npm run admin:sign-in-link -- you@example.com
 * (in the container image: node scripts/admin-sign-in-link.mjs you@example.com)
 *
 * Prints a one-time sign-in link (15 minutes) for an operator's address (one of ADMIN_EMAILS): the
 * first way into the console when no mail provider or OAuth app is set up yet (lib/auth/
 * create-operator-link.ts). Run it with the server's own settings (the same .env files or variables:
 * the link is signed with NEXTAUTH_SECRET). It needs no database, so it works while the server runs.
 * The link's address is NEXTAUTH_URL, else http://localhost:$PORT.
 */
import { loadEnvConfig } from "@next/env";
import { env, EnvError } from "@/lib/config/env";
import { createOperatorLink } from "@/lib/auth/create-operator-link";
import { isAppError } from "@/lib/errors";

function main(): number {
  // The settings files the server reads: production's unless NODE_ENV says development.
  loadEnvConfig(process.cwd(), process.env.NODE_ENV === "development", { info: () => {}, error: console.error });
  const email = process.argv.slice(2).find((a) => !a.startsWith("-"));
  if (!email) {
    console.error("Usage: npm run admin:sign-in-link -- you@example.com   (an address in ADMIN_EMAILS)");
    return 2;
  }
  let e;
  try {
    e = env();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  if (e.ADMIN_EMAILS.length === 0) {
    console.error("ADMIN_EMAILS is empty: set it to the operators' addresses (comma-separated), restart the server, then run this again.");
    return 1;
  }
  const base = e.NEXTAUTH_URL ?? `http://localhost:${process.env.PORT || 3000}`;
  try {
    const link = createOperatorLink(email, base);
    console.log(`One-time sign-in link for ${email.trim().toLowerCase()} (works once, for 15 minutes; opens the console):\n\n${link}\n`);
    if (!e.NEXTAUTH_URL)
      console.log(
        "NEXTAUTH_URL is not set: the link uses http://localhost:" +
          (process.env.PORT || 3000) +
          "; set NEXTAUTH_URL to the site's public address to get that instead.",
      );
    return 0;
  } catch (error) {
    if (isAppError(error)) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}

process.exit(main());
