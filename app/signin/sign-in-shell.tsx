import Link from "next/link";
import type { ReactNode } from "react";

/**
 * The frame of the pages a visitor reaches before the dashboard (sign-in, a sign-in link, an
 * invitation): the product's name and one card under a heading ("Sign in" unless said otherwise).
 */
export function SignInShell({ children, title = "Sign in", wide = false }: { children: ReactNode; title?: string; wide?: boolean }) {
  return (
    <main id="main" className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className={`w-full ${wide ? "max-w-md" : "max-w-sm"}`}>
        <Link href="/" className="text-sm font-semibold uppercase tracking-wider text-brand-600">
          Subscription AI Service
        </Link>
        <div className="card mt-3">
          <h1>{title}</h1>
          {children}
        </div>
      </div>
    </main>
  );
}
