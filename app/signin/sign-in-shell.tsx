import Link from "next/link";
import type { ReactNode } from "react";

/** The frame of the sign-in pages: the product's name and one card headed "Sign in". */
export function SignInShell({ children }: { children: ReactNode }) {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <Link href="/" className="text-sm font-semibold uppercase tracking-wider text-brand-600">
          Subscription AI Service
        </Link>
        <div className="card mt-3">
          <h1>Sign in</h1>
          {children}
        </div>
      </div>
    </main>
  );
}
