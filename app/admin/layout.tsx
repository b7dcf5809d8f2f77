import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardNav, type NavItem } from "@/components/dashboard-nav";
import { resolveOperator } from "@/lib/auth/resolve-operator";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: { default: "Operator console", template: "%s · Operator console" }, robots: { index: false } };

const ITEMS: NavItem[] = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/usage", label: "AI usage" },
  { href: "/admin/ai-routes", label: "AI routes" },
  { href: "/admin/webhooks", label: "Webhooks" },
  { href: "/admin/cron", label: "Cron" },
  { href: "/admin/emails", label: "Emails" },
  { href: "/admin/audit", label: "Audit log" },
  { href: "/dashboard", label: "Dashboard", external: true },
];

/**
 * The operator console: a page that does not exist for anyone but an operator (a signed-in user with
 * a verified email in ADMIN_EMAILS): everyone else, signed in or not, gets the not-found page.
 */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const operator = await resolveOperator(new Request("http://localhost/admin", { headers: await headers() }));
  if (!operator) notFound();
  return (
    <div className="min-h-screen">
      <DashboardNav items={ITEMS} home="/admin" title="Operator console" label="Operator console" />
      <main id="main" className="mx-auto max-w-6xl px-4 py-8">
        {children}
      </main>
    </div>
  );
}
