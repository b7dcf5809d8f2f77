"use client";

import Link from "next/link";
import { useState } from "react";
import { SearchForm } from "@/components/admin/search-form";
import type { AdminUsers } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { PagedTable, useCursorList } from "@/components/paged-list";
import { EmptyState, PageHeader } from "@/components/ui";

const n = (value: number) => value.toLocaleString("en-US");

/** Find a user by email prefix, user id, identity id, or a Lemon Squeezy customer / subscription id. */
export function UsersPanel() {
  const [query, setQuery] = useState("");
  const list = useCursorList<AdminUsers>("/api/admin/users", { q: query });

  return (
    <>
      <PageHeader
        title="Users"
        description="Search by the start of an email address, a user id, the identity provider's id, or a Lemon Squeezy customer or subscription id."
      />
      <SearchForm id="user-search" label="Search users" placeholder="email, user id, customer or subscription id" onSearch={setQuery} />
      <PagedTable
        list={list}
        rows="users"
        empty={<EmptyState title="No user matches">Try the start of the email address, or paste an id.</EmptyState>}
        columns={[
          {
            header: "User",
            cell: (u) => (
              <>
                <Link className="link" href={`/admin/users/${u.id}`}>
                  {u.email ?? u.id}
                </Link>
                {u.locked ? <span className="ml-2 rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-800">locked</span> : null}
                <div className="text-xs text-slate-500">{u.id}</div>
              </>
            ),
          },
          { header: "Tier", cell: (u) => u.tier, cellClass: () => "capitalize" },
          { header: "Subscription", cell: (u) => u.subscriptionStatus ?? "—" },
          { header: "Credits", align: "right", cell: (u) => n(u.balances.subscription) },
          { header: "Bonus", align: "right", cell: (u) => n(u.balances.bonus) },
          { header: "Created", cell: (u) => formatDate(u.createdAt) },
        ]}
      />
    </>
  );
}
