import type { Metadata } from "next";
import type { ReactNode } from "react";
import { DashboardNav, type NavItem } from "@/components/dashboard-nav";
import { env } from "@/lib/config/env";
import { flags } from "@/lib/config/flags";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: { default: "Dashboard", template: "%s · Dashboard" } };

/** Navigation from the server's feature flags: a disabled feature is not shown at all. */
export default function DashboardLayout({ children }: { children: ReactNode }) {
  const f = flags();
  const anyAi = f.aiChat || f.aiImage || f.aiContent || f.aiAudio;
  const items: NavItem[] = [
    { href: "/dashboard", label: "Overview" },
    { href: "/dashboard/billing", label: "Billing" },
    { href: "/dashboard/credits", label: f.creditBased ? "Credits" : "Usage" },
    ...(anyAi ? [{ href: "/dashboard/ai", label: "AI studio" }] : []),
    ...(f.aiRag ? [{ href: "/dashboard/knowledge", label: "Knowledge" }] : []),
    { href: "/dashboard/files", label: "Files" },
    ...(f.apiKeys ? [{ href: "/dashboard/keys", label: "API keys" }] : []),
    { href: "/dashboard/email", label: "Email" },
    { href: "/dashboard/organisations", label: "Organisations" },
    { href: "/dashboard/alerts", label: "Alerts" },
    { href: "/dashboard/account", label: "Account" },
    ...(!env().isProduction ? [{ href: "/dev/mailbox", label: "Mailbox (dev)", external: true }] : []),
  ];
  return (
    <div className="min-h-screen">
      <DashboardNav items={items} accounts />
      <main id="main" className="mx-auto max-w-6xl px-4 py-8">
        {children}
      </main>
    </div>
  );
}
