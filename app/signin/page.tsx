import type { Metadata } from "next";
import { env } from "@/lib/config/env";
import { safeRedirectPath } from "@/lib/config/public-url";
import { SignInForm } from "./sign-in-form";
import { SignInShell } from "./sign-in-shell";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

const ERRORS: Record<string, string> = {
  CredentialsSignin: "Sign-in failed. Check the email address and try again.",
  OAuthSignin: "The sign-in provider could not be reached. Try again.",
  OAuthCallback: "The sign-in provider did not complete the sign-in. Try again.",
  OAuthAccountNotLinked: "This email is already used with another sign-in method.",
  AccessDenied: "Access was denied. Your account may be locked.",
  AccountLocked: "This account is locked. Contact support.",
  EmailNotVerified:
    "The sign-in provider has not verified the email address of this account, so it cannot be used to sign in here. Verify the address with the provider, or sign in another way.",
  EmailMissing: "The sign-in provider did not share an email address. Allow access to your email address and try again.",
  SessionRequired: "Please sign in to continue.",
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string; error?: string }> }) {
  const { callbackUrl, error } = await searchParams;
  // Only this site's paths: never an open redirect after sign-in (lib/config/public-url.ts).
  const target = safeRedirectPath(callbackUrl);
  return (
    <SignInShell>
      <p className="mt-1 text-sm text-slate-600">Use one of the sign-in methods this server offers.</p>
      {error ? (
        <p role="alert" className="mt-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {ERRORS[error] ?? "Sign-in failed. Please try again."}
        </p>
      ) : null}
      <SignInForm callbackUrl={target} localMailbox={!env().isProduction && !env().RESEND_API_KEY} />
    </SignInShell>
  );
}
