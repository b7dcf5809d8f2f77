"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import type { ApiError } from "./api";

function untilText(retryAt: number, now: number): string {
  const seconds = Math.max(0, Math.ceil(retryAt - now / 1000));
  if (seconds < 60) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/**
 * An API error explained for people: 402 says how to get credits, 429 says when to retry, 401 asks to
 * sign in again, 404 on a feature says it is unavailable. Announced to screen readers (role="alert").
 */
export function ErrorNotice({ error, onDismiss }: { error: ApiError | null; onDismiss?: () => void }) {
  const pathname = usePathname() ?? "/dashboard";
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (error?.status !== 429 || !error.retryAt) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [error]);
  if (!error) return null;

  let hint: React.ReactNode = null;
  if (error.status === 402) {
    hint = (
      <>
        You do not have enough credits for this. Buy a{" "}
        <Link className="link" href="/dashboard/credits">
          bonus credit package
        </Link>{" "}
        or{" "}
        <Link className="link" href="/dashboard/billing">
          upgrade your plan
        </Link>
        ; nothing was charged.
      </>
    );
  } else if (error.status === 429) {
    hint = error.retryAt
      ? `Too many requests. You can try again in ${untilText(error.retryAt, now)} (at ${new Date(error.retryAt * 1000).toLocaleTimeString()}).`
      : "Too many requests. Please wait a while before trying again.";
  } else if (error.status === 401) {
    hint = (
      <>
        Your session has ended.{" "}
        <a className="link" href={`/signin?callbackUrl=${encodeURIComponent(pathname)}`}>
          Sign in again
        </a>
        .
      </>
    );
  } else if (error.status === 0) {
    hint = "Check your connection and try again.";
  } else if (error.status >= 500) {
    hint = "Something went wrong on our side. Nothing was charged for a failed request; please try again.";
  }

  return (
    <div role="alert" className="mb-4 flex items-start justify-between gap-4 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
      <div>
        <p className="font-semibold">{error.message}</p>
        {hint ? <p className="mt-1 text-red-700">{hint}</p> : null}
      </div>
      {onDismiss ? (
        <button type="button" onClick={onDismiss} className="rounded px-1 text-red-700 hover:bg-red-100" aria-label="Dismiss error">
          ×
        </button>
      ) : null}
    </div>
  );
}
