"use client";

import { useState, type ReactNode } from "react";
import type { Column } from "../data-table";
import { formatDate } from "../api";
import { PagedTable, useCursorList, type RowOf, type RowsKey } from "../paged-list";
import { PageHeader } from "../ui";
import { SearchForm } from "./search-form";

const n = (value: number) => value.toLocaleString("en-US");

/**
 * A console page that finds accounts: its header, the search box (applied when submitted) and the
 * cursor-paged results, from the operator API at `path` (`?q=`).
 */
export function SearchPage<R extends { nextCursor: string | null }, K extends RowsKey<R>>(props: {
  title: string;
  description: string;
  search: { id: string; label: string; placeholder: string };
  path: string;
  rows: K;
  empty: ReactNode;
  columns: Column<RowOf<R, K>>[];
}) {
  const [query, setQuery] = useState("");
  const list = useCursorList<R>(props.path, { q: query });
  return (
    <>
      <PageHeader title={props.title} description={props.description} />
      <SearchForm {...props.search} onSearch={setQuery} />
      <PagedTable list={list} rows={props.rows} empty={props.empty} columns={props.columns} />
    </>
  );
}

/** The columns every account row ends with: its tier, its two credit buckets and when it was made. */
export function walletColumns<
  T extends { tier: string; balances: { subscription: number; bonus: number }; createdAt: string },
>(): Column<T>[] {
  return [
    { header: "Tier", cell: (a) => a.tier, cellClass: () => "capitalize" },
    { header: "Credits", align: "right", cell: (a) => n(a.balances.subscription) },
    { header: "Bonus", align: "right", cell: (a) => n(a.balances.bonus) },
    { header: "Created", cell: (a) => formatDate(a.createdAt) },
  ];
}
