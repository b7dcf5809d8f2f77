import type { Metadata } from "next";
import Link from "next/link";
import { AcceptInvite } from "./accept-invite";

export const metadata: Metadata = { title: "Invitation", robots: { index: false }, referrer: "no-referrer" };

/**
 * Where an invitation link lands: the token is in the link's fragment (never sent to a server, never
 * logged); the page keeps it for this tab while the person signs in, then accepts it on a click.
 */
export default function InvitePage() {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <Link href="/" className="text-sm font-semibold uppercase tracking-wider text-brand-600">
          Subscription AI Service
        </Link>
        <div className="card mt-3">
          <h1>Invitation</h1>
          <AcceptInvite />
        </div>
      </div>
    </main>
  );
}
