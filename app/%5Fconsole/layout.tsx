import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardNav, type NavItem } from "@/components/dashboard-nav";
import { currentOperator, operatorMetadata } from "./operator-metadata";

export const dynamic = "force-dynamic";
/** The console's title only for operators: anyone else gets exactly the not-found page of an unknown path. */
export const generateMetadata = operatorMetadata({
  title: { default: "Operator console", template: "%s · Operator console" },
  robots: { index: false },
});

const ITEMS: NavItem[] = [
  { href: "/admin", label: "Overview" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/organisations", label: "Organisations" },
  { href: "/admin/usage", label: "AI usage" },
  { href: "/admin/ai-routes", label: "AI routes" },
  { href: "/admin/webhooks", label: "Webhooks" },
  { href: "/admin/outbound", label: "Outbound" },
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
  if (!(await currentOperator())) notFound();
  return (
    <div className="min-h-screen">
      <DashboardNav items={ITEMS} home="/admin" title="Operator console" label="Operator console" />
      <main id="main" className="mx-auto max-w-6xl px-4 py-8">
        {children}
      </main>
    </div>
  );
}
