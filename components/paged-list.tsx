"use client";

import { useState, type ReactNode } from "react";
import { DataTable, type Column } from "./data-table";
import { ErrorNotice } from "./error-notice";
import { ActionButton, PageHeader, Spinner } from "./ui";
import type { ApiError } from "./api";
import { useApi, type ApiResource } from "./use-api";

/** How many rows a dashboard list shows a page (files, credit history). */
export const LIST_PAGE_SIZE = 20;

/** A cursor-paged list of the operator API: the resource, and where the pager stands. */
export interface CursorList<R> extends ApiResource<R> {
  cursor: string | null;
  next: () => void;
  first: () => void;
}

/**
 * GETs `path` with `params` and a cursor: the first page for any new set of params (no effect needed:
 * the cursor belongs to the params it was set under), the next page on next().
 */
export function useCursorList<R extends { nextCursor: string | null }>(
  path: string,
  params: Record<string, string | null | undefined>,
  limit = 25,
): CursorList<R> {
  const query = new URLSearchParams({ limit: String(limit) });
  for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
  const key = query.toString();
  const [paging, setPaging] = useState<{ key: string; cursor: string | null }>({ key, cursor: null });
  const cursor = paging.key === key ? paging.cursor : null;
  if (cursor) query.set("cursor", cursor);
  const resource = useApi<R>(`${path}?${query}`);
  return {
    ...resource,
    cursor,
    next: () => setPaging({ key, cursor: resource.data?.nextCursor ?? null }),
    first: () => setPaging({ key, cursor: null }),
  };
}

/** The fields of a page answer that hold its rows. */
export type RowsKey<R> = { [K in keyof R]: R[K] extends readonly unknown[] ? K : never }[keyof R];
export type RowOf<R, K extends keyof R> = R[K] extends readonly (infer T)[] ? T : never;

/**
 * A paged list shown as a table: its error, loading and empty states, the rows (the answer's field
 * named by `rows`, each keyed by its `id` unless `rowKey` says otherwise), and the pager.
 */
export function PagedTable<R extends { nextCursor: string | null }, K extends RowsKey<R>>({
  list,
  rows,
  columns,
  rowKey = (row) => (row as { id: string }).id,
  empty,
  label,
}: {
  list: CursorList<R>;
  rows: K;
  columns: Column<RowOf<R, K>>[];
  rowKey?: (row: RowOf<R, K>) => string;
  empty: ReactNode;
  label?: string;
}) {
  const items = (list.data ? list.data[rows] : []) as RowOf<R, K>[];
  return (
    <>
      {list.error ? <ErrorNotice error={list.error} /> : null}
      {list.loading && !list.data ? <Spinner /> : null}
      {list.data && items.length === 0 ? empty : null}
      {items.length > 0 ? <DataTable rows={items} columns={columns} rowKey={rowKey} label={label} /> : null}
      <div className="mt-3 flex gap-2">
        {list.cursor ? (
          <button type="button" className="btn-secondary" onClick={list.first}>
            First page
          </button>
        ) : null}
        {list.data?.nextCursor ? (
          <button type="button" className="btn-secondary" onClick={list.next}>
            Next page
          </button>
        ) : null}
      </div>
    </>
  );
}

/**
 * What stands in for a resource's data until it has some: a spinner while its request is out; once it
 * failed (a rate limit, the network, a server error), the error explained and a way to try again.
 * Never a spinner waiting for an answer that already came.
 */
export function Pending({ resource, label }: { resource: Pick<ApiResource<unknown>, "error" | "reload">; label?: string }) {
  const [retrying, setRetrying] = useState(false);
  if (!resource.error || retrying) return <Spinner label={label} />;
  const retry = () => {
    setRetrying(true);
    void resource.reload().finally(() => setRetrying(false));
  };
  return (
    <div data-testid="load-failed">
      <ErrorNotice error={resource.error} />
      <button type="button" className="btn-secondary" onClick={retry}>
        Try again
      </button>
    </div>
  );
}

/** A loading resource's state: its error (explained), or a spinner until its first answer. */
export function LoadState({ error, loading }: { error: ApiError | null; loading: boolean }) {
  return (
    <>
      {error ? <ErrorNotice error={error} /> : null}
      {loading ? <Spinner /> : null}
    </>
  );
}

/** The Refresh action of a page that shows live figures. */
export function RefreshButton({ onRefresh }: { onRefresh: () => Promise<void> | void }) {
  return (
    <button type="button" className="btn-secondary" onClick={() => void onRefresh()}>
      Refresh
    </button>
  );
}

/**
 * A page of one API resource: its header, the resource's loading state (its error explained, or a
 * spinner until the first answer), then its content once there is data.
 */
export function ResourcePage<T>({
  path,
  title,
  description,
  refreshable,
  children,
}: {
  path: string;
  title: string;
  description: string;
  /** A Refresh button in the header. */
  refreshable?: boolean;
  children: (data: T, reload: () => Promise<void>) => ReactNode;
}) {
  const { data, error, loading, reload } = useApi<T>(path);
  return (
    <>
      <PageHeader title={title} description={description} actions={refreshable ? <RefreshButton onRefresh={reload} /> : undefined} />
      <LoadState error={error} loading={loading && !data} />
      {data ? children(data, reload) : null}
    </>
  );
}

/** An offset-paged list's pager: Previous, where the page stands, Next (shown only when there is more than a page). */
export function OffsetPager({
  offset,
  total,
  onChange,
  label,
  position,
  busy = false,
}: {
  offset: number;
  total: number;
  onChange: (offset: number) => void;
  label: string;
  position: ReactNode;
  busy?: boolean;
}) {
  if (total <= LIST_PAGE_SIZE) return null;
  return (
    <nav className="mt-4 flex items-center justify-between text-sm" aria-label={label}>
      <ActionButton disabled={offset === 0 || busy} onClick={() => onChange(Math.max(0, offset - LIST_PAGE_SIZE))}>
        Previous
      </ActionButton>
      <span className="text-slate-600">{position}</span>
      <ActionButton disabled={offset + LIST_PAGE_SIZE >= total || busy} onClick={() => onChange(offset + LIST_PAGE_SIZE)}>
        Next
      </ActionButton>
    </nav>
  );
}
