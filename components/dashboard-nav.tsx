"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { AccountSwitcher } from "./account-switcher";

export interface NavItem {
  href: string;
  label: string;
  external?: boolean;
}

function isActive(pathname: string, href: string, home: string): boolean {
  return href === home ? pathname === href : pathname === href || pathname.startsWith(`${href}/`);
}

/**
 * The navigation (items decided on the server: the dashboard's from the feature flags, the operator
 * console's fixed) and the account menu.
 */
export function DashboardNav({
  items,
  home = "/dashboard",
  title = "Subscription AI",
  label = "Dashboard",
  accounts = false,
}: {
  items: NavItem[];
  home?: string;
  title?: string;
  label?: string;
  /** Show the account switcher (the dashboard: a person or an organisation they belong to). */
  accounts?: boolean;
}) {
  const pathname = usePathname() ?? "";
  const router = useRouter();
  // The small-screen menu is open for the page it was opened on: navigating closes it (derived state).
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const [email, setEmail] = useState<string | null>(null);

  useEffect(() => {
    fetch("/api/auth/session")
      .then((r) => r.json())
      .then((s: { user?: { email?: string } } | null) => setEmail(s?.user?.email ?? null))
      .catch(() => setEmail(null));
  }, []);

  async function signOut() {
    const { csrfToken } = (await (await fetch("/api/auth/csrf")).json()) as { csrfToken: string };
    await fetch("/api/auth/signout", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, json: "true" }),
    });
    router.replace("/signin");
    router.refresh();
  }

  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-4 px-4 py-3">
        <Link href={home} className="font-semibold text-slate-900">
          <span className="text-brand-600">◆</span> {title}
        </Link>
        <button
          type="button"
          className="btn-secondary md:hidden"
          aria-expanded={open}
          aria-controls="dashboard-nav"
          onClick={() => setOpenOn(open ? null : pathname)}
        >
          Menu
        </button>
        <div className="hidden items-center gap-3 text-sm md:flex">
          {accounts ? <AccountSwitcher /> : null}
          {email ? (
            <span className="text-slate-600" data-testid="account-email">
              {email}
            </span>
          ) : null}
          <button type="button" className="btn-secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </div>
      <nav id="dashboard-nav" aria-label={label} className={`${open ? "block" : "hidden"} border-t border-slate-100 md:block`}>
        <ul className="mx-auto flex max-w-6xl flex-col gap-1 px-4 py-2 md:flex-row md:flex-wrap md:gap-1">
          {items.map((item) => {
            const active = !item.external && isActive(pathname, item.href, home);
            const cls = `block rounded-md px-3 py-1.5 text-sm font-medium ${
              active ? "bg-brand-50 text-brand-700" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"
            }`;
            return (
              <li key={item.href}>
                {item.external ? (
                  <a href={item.href} className={cls}>
                    {item.label}
                  </a>
                ) : (
                  <Link href={item.href} className={cls} aria-current={active ? "page" : undefined}>
                    {item.label}
                  </Link>
                )}
              </li>
            );
          })}
          <li className="md:hidden">
            <button
              type="button"
              className="block w-full rounded-md px-3 py-1.5 text-left text-sm font-medium text-slate-600 hover:bg-slate-100"
              onClick={signOut}
            >
              Sign out{email ? ` (${email})` : ""}
            </button>
          </li>
        </ul>
      </nav>
    </header>
  );
}
