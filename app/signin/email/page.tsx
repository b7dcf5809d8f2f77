import type { Metadata } from "next";
import Link from "next/link";
import { safeRedirectPath } from "@/lib/config/public-url";
import { SignInShell } from "../sign-in-shell";
import { EmailLinkConfirm } from "./email-link-confirm";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in", robots: { index: false } };

/** Where a sign-in link lands: one click signs in (a mail scanner fetching the link spends nothing). */
export default async function EmailSignInPage({ searchParams }: { searchParams: Promise<{ email?: string; token?: string; callbackUrl?: string }> }) {
  const { email, token, callbackUrl } = await searchParams;
  return (
    <SignInShell>
      {email && token ? (
        <EmailLinkConfirm email={email} token={token} callbackUrl={safeRedirectPath(callbackUrl)} />
      ) : (
        <p role="alert" className="mt-4 text-sm text-red-700">
          This sign-in link is incomplete. Ask for a new one on the <Link className="link" href="/signin">sign-in page</Link>.
        </p>
      )}
    </SignInShell>
  );
}
