"use client";

import Link from "next/link";
import { SearchPage, walletColumns } from "@/components/admin/search-page";
import type { AdminOrganisations } from "@/components/admin-types";
import { EmptyState } from "@/components/ui";

/** Find an organisation by name or slug, id, or a member's email; its page is the account page (wallet, ledger, members). */
export function OrganisationsPanel() {
  return (
    <SearchPage<AdminOrganisations, "organisations">
      title="Organisations"
      description="Search by the start of a name or slug, an organisation id, or the start of a member's email address."
      search={{ id: "org-search", label: "Search organisations", placeholder: "name, slug, id or member email" }}
      path="/api/admin/organisations"
      rows="organisations"
      empty={<EmptyState title="No organisation matches">Try the start of its name, or of a member&apos;s email.</EmptyState>}
      columns={[
        {
          header: "Organisation",
          cell: (o) => (
            <>
              <Link className="link" href={`/admin/users/${o.id}`}>
                {o.name}
              </Link>
              <div className="text-xs text-slate-500">{o.slug}</div>
            </>
          ),
        },
        { header: "Owner", cell: (o) => o.owner ?? "—" },
        { header: "Members", align: "right", cell: (o) => o.members.toLocaleString("en-US") },
        ...walletColumns<AdminOrganisations["organisations"][number]>(),
      ]}
    />
  );
}
