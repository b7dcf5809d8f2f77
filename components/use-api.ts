"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { apiJson, toApiError, type ApiError } from "./api";

interface Loaded<T> {
  /** The address the data and error below belong to (null before the first answer). */
  url: string | null;
  data: T | null;
  error: ApiError | null;
}

export interface ApiResource<T> {
  /** The latest data (kept while a new address loads, so tables do not flicker). */
  data: T | null;
  error: ApiError | null;
  /** True until the current address has answered (derived, never set in an effect). */
  loading: boolean;
  /** Fetches the current address again; resolves once the new data (or error) is in state. */
  reload(): Promise<void>;
  /** Replaces the data with a value the API just returned (e.g. the answer of a PATCH). */
  setData(data: T): void;
}

/**
 * GET a JSON resource of the API and keep it in state. The effect only starts the request; state is
 * set in its promise callbacks, and only by the newest request (an older answer arriving late, or one
 * for an address the component no longer shows, is dropped). `loading` is derived from which address
 * the state belongs to. Pass null to fetch nothing.
 */
export function useApi<T>(url: string | null): ApiResource<T> {
  const [state, setState] = useState<Loaded<T>>({ url: null, data: null, error: null });
  const latest = useRef(0);

  const fetchInto = useCallback((target: string) => {
    const id = ++latest.current;
    return apiJson<T>(target).then(
      (data) => {
        if (id === latest.current) setState({ url: target, data, error: null });
      },
      (error: unknown) => {
        if (id === latest.current) setState((prev) => ({ url: target, data: prev.data, error: toApiError(error) }));
      },
    );
  }, []);

  useEffect(() => {
    if (url === null) return;
    void fetchInto(url);
  }, [url, fetchInto]);

  const reload = useCallback(() => (url === null ? Promise.resolve() : fetchInto(url)), [url, fetchInto]);
  const setData = useCallback((data: T) => {
    latest.current += 1; // an answer still in flight is older than this value
    setState((prev) => ({ ...prev, data, error: null }));
  }, []);

  return { data: state.data, error: state.error, loading: url !== null && state.url !== url, reload, setData };
}
