"use client";

import Link from "next/link";
import { useState } from "react";
import { SearchForm } from "@/components/admin/search-form";
import type { AdminOrganisations } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { PagedTable, useCursorList } from "@/components/paged-list";
import { EmptyState, PageHeader } from "@/components/ui";

const n = (value: number) => value.toLocaleString("en-US");

/** Find an organisation by name or slug, id, or a member's email; its page is the account page (wallet, ledger, members). */
export function OrganisationsPanel() {
  const [query, setQuery] = useState("");
  const list = useCursorList<AdminOrganisations>("/api/admin/organisations", { q: query });

  return (
    <>
      <PageHeader
        title="Organisations"
        description="Search by the start of a name or slug, an organisation id, or the start of a member's email address."
      />
      <SearchForm id="org-search" label="Search organisations" placeholder="name, slug, id or member email" onSearch={setQuery} />
      <PagedTable
        list={list}
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
          { header: "Members", align: "right", cell: (o) => n(o.members) },
          { header: "Tier", cell: (o) => o.tier, cellClass: () => "capitalize" },
          { header: "Credits", align: "right", cell: (o) => n(o.balances.subscription) },
          { header: "Bonus", align: "right", cell: (o) => n(o.balances.bonus) },
          { header: "Created", cell: (o) => formatDate(o.createdAt) },
        ]}
      />
    </>
  );
}
