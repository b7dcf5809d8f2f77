import type { Metadata } from "next";
import { SignInShell } from "../signin/sign-in-shell";
import { AcceptInvite } from "./accept-invite";

export const metadata: Metadata = { title: "Invitation", robots: { index: false }, referrer: "no-referrer" };

/**
 * Where an invitation link lands: the token is in the link's fragment (never sent to a server, never
 * logged); the page keeps it for this tab while the person signs in, then accepts it on a click.
 */
export default function InvitePage() {
  return (
    <SignInShell title="Invitation" wide>
      <AcceptInvite />
    </SignInShell>
  );
}
