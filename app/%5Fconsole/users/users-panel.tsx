"use client";

import Link from "next/link";
import { SearchPage, walletColumns } from "@/components/admin/search-page";
import type { AdminUsers } from "@/components/admin-types";
import { EmptyState } from "@/components/ui";

/** Find a user by email prefix, user id, identity id, or a Lemon Squeezy customer / subscription id. */
export function UsersPanel() {
  return (
    <SearchPage<AdminUsers, "users">
      title="Users"
      description="Search by the start of an email address, a user id, the identity provider's id, or a Lemon Squeezy customer or subscription id."
      search={{ id: "user-search", label: "Search users", placeholder: "email, user id, customer or subscription id" }}
      path="/api/admin/users"
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
        { header: "Subscription", cell: (u) => u.subscriptionStatus ?? "—" },
        ...walletColumns<AdminUsers["users"][number]>(),
      ]}
    />
  );
}
