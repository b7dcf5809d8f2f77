"use client";

import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { AdminUsers } from "@/components/admin-types";
import { formatDate } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader, Spinner } from "@/components/ui";
import { useApi } from "@/components/use-api";

/** Find a user by email prefix, user id, identity id, or a Lemon Squeezy customer / subscription id. */
export function UsersPanel() {
  const [input, setInput] = useState("");
  const [query, setQuery] = useState("");
  const [cursor, setCursor] = useState<string | null>(null);
  const url = `/api/admin/users?limit=25${query ? `&q=${encodeURIComponent(query)}` : ""}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
  const { data, error, loading } = useApi<AdminUsers>(url);

  function search(event: FormEvent) {
    event.preventDefault();
    setCursor(null);
    setQuery(input.trim());
  }

  return (
    <>
      <PageHeader title="Users" description="Search by the start of an email address, a user id, the identity provider's id, or a Lemon Squeezy customer or subscription id." />
      <form role="search" className="mb-4 flex flex-wrap gap-2" onSubmit={search}>
        <label htmlFor="user-search" className="sr-only">
          Search users
        </label>
        <input id="user-search" className="input max-w-md" value={input} onChange={(e) => setInput(e.target.value)} placeholder="email, user id, customer or subscription id" />
        <button type="submit" className="btn-primary">
          Search
        </button>
      </form>
      {error ? <ErrorNotice error={error} /> : null}
      {loading && !data ? <Spinner /> : null}
      {data && data.users.length === 0 ? <EmptyState title="No user matches">Try the start of the email address, or paste an id.</EmptyState> : null}
      {data && data.users.length > 0 ? (
        <div className="card overflow-x-auto p-0">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-4 py-2">User</th>
                <th scope="col" className="px-4 py-2">Tier</th>
                <th scope="col" className="px-4 py-2">Subscription</th>
                <th scope="col" className="px-4 py-2 text-right">Credits</th>
                <th scope="col" className="px-4 py-2 text-right">Bonus</th>
                <th scope="col" className="px-4 py-2">Created</th>
              </tr>
            </thead>
            <tbody>
              {data.users.map((u) => (
                <tr key={u.id} className="border-t border-slate-100">
                  <td className="px-4 py-2">
                    <Link className="link" href={`/admin/users/${u.id}`}>
                      {u.email ?? u.id}
                    </Link>
                    {u.locked ? <span className="ml-2 rounded bg-red-100 px-1.5 py-0.5 text-xs text-red-800">locked</span> : null}
                    <div className="text-xs text-slate-500">{u.id}</div>
                  </td>
                  <td className="px-4 py-2 capitalize">{u.tier}</td>
                  <td className="px-4 py-2">{u.subscriptionStatus ?? "—"}</td>
                  <td className="px-4 py-2 text-right">{u.balances.subscription.toLocaleString("en-US")}</td>
                  <td className="px-4 py-2 text-right">{u.balances.bonus.toLocaleString("en-US")}</td>
                  <td className="px-4 py-2">{formatDate(u.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <div className="mt-3 flex gap-2">
        {cursor ? (
          <button type="button" className="btn-secondary" onClick={() => setCursor(null)}>
            First page
          </button>
        ) : null}
        {data?.nextCursor ? (
          <button type="button" className="btn-secondary" onClick={() => setCursor(data.nextCursor)}>
            Next page
          </button>
        ) : null}
      </div>
    </>
  );
}
