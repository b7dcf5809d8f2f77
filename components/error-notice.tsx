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
 * An API error explained for people, by its code: no credits says how to get some, a rate limit when
 * to retry, an ended session asks to sign in again, a switched-off feature says so, a plan limit
 * points at the plans. Announced to screen readers (role="alert").
 */
export function ErrorNotice({ error, onDismiss }: { error: ApiError | null; onDismiss?: () => void }) {
  const pathname = usePathname() ?? "/dashboard";
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (error?.code !== "rate_limited" || !error.retryAt) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [error]);
  if (!error) return null;

  // The API's error code says what happened (a status alone is ambiguous: 404 is a missing thing or a
  // feature switched off, 403 a refusal or a plan limit).
  let hint: React.ReactNode = null;
  switch (error.code) {
    case "insufficient_credits":
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
      break;
    case "rate_limited":
      hint = error.retryAt
        ? `Too many requests. You can try again in ${untilText(error.retryAt, now)} (at ${new Date(error.retryAt * 1000).toLocaleTimeString()}).`
        : "Too many requests. Please wait a while before trying again.";
      break;
    case "unauthorized":
      hint = (
        <>
          Your session has ended.{" "}
          <a className="link" href={`/signin?callbackUrl=${encodeURIComponent(pathname)}`}>
            Sign in again
          </a>
          .
        </>
      );
      break;
    case "feature_disabled":
      hint = "This feature is switched off on this server.";
      break;
    case "limit_reached":
      hint = (
        <>
          This is a limit of your plan;{" "}
          <Link className="link" href="/dashboard/billing">
            a higher plan
          </Link>{" "}
          raises it.
        </>
      );
      break;
    case "network":
      hint = "Check your connection and try again.";
      break;
    case "internal":
    case "unavailable":
    case "upstream_failed":
    case "provider_not_configured":
    case "misconfigured":
      hint = "Something went wrong on our side. Nothing was charged for a failed request; please try again.";
      break;
  }

  return (
    <div
      role="alert"
      className="mb-4 flex items-start justify-between gap-4 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"
    >
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
