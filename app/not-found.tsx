import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Page not found", robots: { index: false } };

/** Every page that does not exist, and every console page for anyone but an operator: the same answer. */
export default function NotFound() {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12 text-center">
      <div>
        <h1>Page not found</h1>
        <p className="mt-2 text-sm text-slate-600">There is nothing at this address.</p>
        <p className="mt-4 text-sm">
          <Link className="link" href="/">
            Home
          </Link>
        </p>
      </div>
    </main>
  );
}
