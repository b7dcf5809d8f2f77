import type { Metadata } from "next";
import { SignInShell } from "../sign-in-shell";
import { EmailLinkConfirm } from "./email-link-confirm";

export const metadata: Metadata = { title: "Sign in", robots: { index: false }, referrer: "no-referrer" };

/**
 * Where a sign-in link lands: one click signs in (a mail scanner fetching the link spends nothing).
 * The link's address, token and destination are in its fragment, which the browser never sends:
 * the page reads them in the browser.
 */
export default function EmailSignInPage() {
  return (
    <SignInShell>
      <EmailLinkConfirm />
    </SignInShell>
  );
}
