"use client";

import { useState } from "react";
import { apiJson, formatDate, formatMoney, toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import type { CheckoutUrl, PlanChanged, PlanOption, PortalSession, SubscriptionCancelled, SubscriptionDetails } from "@/components/types";
import { ActionButton, Banner, PageHeader, Spinner } from "@/components/ui";
import { useApi } from "@/components/use-api";

type Period = "monthly" | "yearly";
const RUNNING = new Set(["active", "on_trial", "past_due", "unpaid", "paused"]);
const MAX_TRIAL_DOWNGRADES = 2;

interface Props {
  plans: PlanOption[];
  currency: string;
  creditBased: boolean;
  trialDays: number;
  checkoutCancelled: boolean;
  /** PAYMENTS_ENABLED: false hides every purchase and plan action. */
  paymentsEnabled: boolean;
}

function findPlan(plans: PlanOption[], variantId: string | undefined): { plan: PlanOption; period: Period } | null {
  for (const plan of plans) {
    if (plan.variants.monthly === variantId) return { plan, period: "monthly" };
    if (plan.variants.yearly === variantId) return { plan, period: "yearly" };
  }
  return null;
}

export function BillingPanel({ plans, currency, creditBased, trialDays, checkoutCancelled, paymentsEnabled }: Props) {
  const { data: details, error: loadError, reload: load } = useApi<SubscriptionDetails>("/api/payments/subscription");
  const [period, setPeriod] = useState<Period>("monthly");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirmCancel, setConfirmCancel] = useState(false);

  async function run<T>(key: string, action: () => Promise<T>): Promise<T | undefined> {
    setBusy(key);
    setError(null);
    setNotice(null);
    try {
      return await action();
    } catch (e) {
      setError(toApiError(e));
      return undefined;
    } finally {
      setBusy(null);
    }
  }

  async function subscribe(variantId: string) {
    const res = await run(`checkout:${variantId}`, () =>
      apiJson<CheckoutUrl>("/api/payments/create-checkout", {
        method: "POST",
        json: { variantId, redirectUrl: "/dashboard?checkout=success", cancelUrl: "/dashboard/billing?checkout=cancelled" },
      }),
    );
    if (res) window.location.assign(res.checkoutUrl);
  }

  async function changePlan(newVariantId: string) {
    const res = await run(`change:${newVariantId}`, () =>
      apiJson<PlanChanged>("/api/payments/change-plan", { method: "POST", json: { newVariantId } }),
    );
    if (res) {
      setNotice(res.message);
      await load();
    }
  }

  async function cancel() {
    const res = await run("cancel", () => apiJson<SubscriptionCancelled>("/api/payments/cancel-subscription", { method: "POST" }));
    setConfirmCancel(false);
    if (res) {
      setNotice(`${res.message} Your plan stays active until ${formatDate(res.endsAt, true)}.`);
      await load();
    }
  }

  async function portal() {
    const res = await run("portal", () => apiJson<PortalSession>("/api/payments/create-portal-session", { method: "POST" }));
    if (res) window.location.assign(res.url);
  }

  const sub = details?.subscription ?? null;
  const running = sub !== null && RUNNING.has(sub.status);
  const current = findPlan(plans, sub?.variantId);
  const onTrial = sub?.status === "on_trial";
  const downgradesLeft = Math.max(0, MAX_TRIAL_DOWNGRADES - (details?.user.downgradeCount ?? 0));

  return (
    <>
      <PageHeader title="Billing" description="Choose a plan, switch plans, cancel, or manage payment details in the billing portal." />
      {checkoutCancelled ? <Banner tone="info">The checkout was cancelled; nothing was charged.</Banner> : null}
      {notice ? (
        <Banner tone="success" role="status">
          {notice}
        </Banner>
      ) : null}
      <ErrorNotice error={error ?? loadError} onDismiss={error ? () => setError(null) : undefined} />
      {!details && !loadError ? <Spinner label="Loading your subscription" /> : null}

      {details ? (
        <section className="card mb-6" aria-labelledby="current-heading">
          <h2 id="current-heading">Current plan</h2>
          <p className="mt-2 text-xl font-semibold" data-testid="current-plan">
            {details.planName}
            {current ? <span className="ml-2 text-sm font-normal text-slate-500">({current.period})</span> : null}
          </p>
          {sub ? (
            <dl className="mt-3 grid gap-3 text-sm sm:grid-cols-3">
              <div>
                <dt className="text-slate-500">Status</dt>
                <dd className="font-medium" data-testid="subscription-status">
                  {sub.status.replace(/_/g, " ")}
                </dd>
              </div>
              <div>
                <dt className="text-slate-500">{sub.endsAt ? "Access until" : "Current period ends"}</dt>
                <dd className="font-medium">{formatDate(sub.endsAt ?? sub.currentPeriodEnd, true)}</dd>
              </div>
              {sub.trialEndsAt && onTrial ? (
                <div>
                  <dt className="text-slate-500">Trial ends</dt>
                  <dd className="font-medium">{formatDate(sub.trialEndsAt, true)}</dd>
                </div>
              ) : null}
            </dl>
          ) : (
            <p className="mt-2 text-sm text-slate-600">
              You are on the free plan. Pick a plan below to get more {creditBased ? "credits" : "features"}.
            </p>
          )}
          {sub?.paymentFailed ? (
            <p className="mt-3 text-sm font-medium text-amber-800">
              Your last payment failed. Update your payment method in the billing portal.
            </p>
          ) : null}
          {sub && paymentsEnabled ? (
            <div className="mt-5 flex flex-wrap gap-2">
              <button type="button" className="btn-secondary" onClick={portal} disabled={busy !== null}>
                {busy === "portal" ? "Opening…" : "Open billing portal"}
              </button>
              {running && sub.status !== "cancelled" ? (
                confirmCancel ? (
                  <span className="flex flex-wrap items-center gap-2">
                    <span className="text-sm text-slate-700">Cancel at the end of the current period?</span>
                    <button type="button" className="btn-danger" onClick={cancel} disabled={busy !== null}>
                      {busy === "cancel" ? "Cancelling…" : "Yes, cancel"}
                    </button>
                    <button type="button" className="btn-secondary" onClick={() => setConfirmCancel(false)}>
                      Keep my plan
                    </button>
                  </span>
                ) : (
                  <button type="button" className="btn-danger" onClick={() => setConfirmCancel(true)} disabled={busy !== null}>
                    Cancel subscription
                  </button>
                )
              ) : null}
            </div>
          ) : null}
          {sub?.status === "cancelled" ? (
            <p className="mt-3 text-sm text-slate-600">
              Cancelled: you keep access until {formatDate(sub.endsAt ?? sub.currentPeriodEnd, true)}. Resume it in the billing portal.
            </p>
          ) : null}
        </section>
      ) : null}

      {!paymentsEnabled ? <Banner tone="info">Plans are not on sale on this site: its operator has switched payments off.</Banner> : null}
      {details && paymentsEnabled ? (
        <section aria-labelledby="plans-heading">
          <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
            <h2 id="plans-heading">{running ? "Change plan" : "Plans"}</h2>
            <div role="radiogroup" aria-label="Billing period" className="inline-flex rounded-md border border-slate-300 bg-white p-0.5">
              {(["monthly", "yearly"] as const).map((p) => (
                <button
                  key={p}
                  type="button"
                  role="radio"
                  aria-checked={period === p}
                  onClick={() => setPeriod(p)}
                  className={`rounded px-3 py-1 text-sm font-medium ${period === p ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
                >
                  {p === "monthly" ? "Monthly" : "Yearly"}
                </button>
              ))}
            </div>
          </div>
          {running ? (
            <p className="mb-4 text-sm text-slate-600">
              Plan changes apply at once{creditBased ? "; an upgrade gives you the new plan\u2019s monthly credits right away" : ""}.{" "}
              <strong>During a trial you can downgrade at most {MAX_TRIAL_DOWNGRADES} times</strong>
              {onTrial ? ` (${downgradesLeft} left)` : ""}; after that, further downgrades are refused until the trial ends.
            </p>
          ) : trialDays > 0 && !details.user.hasUsedTrial ? (
            <p className="mb-4 text-sm text-slate-600">Every plan starts with a {trialDays}-day free trial.</p>
          ) : null}
          <ul className="grid gap-4 md:grid-cols-3">
            {plans.map((plan) => {
              const variantId = plan.variants[period];
              const isCurrent = sub?.variantId === variantId && running;
              const price = period === "monthly" ? plan.monthlyPrice : plan.yearlyPrice;
              return (
                <li
                  key={plan.key}
                  className={`card flex flex-col ${isCurrent ? "border-brand-500 ring-1 ring-brand-500" : ""}`}
                  data-testid={`plan-${plan.key}`}
                >
                  <h3 className="text-base font-semibold">{plan.name}</h3>
                  <p className="mt-2 text-2xl font-bold">
                    {formatMoney(price, currency)}
                    <span className="text-sm font-normal text-slate-500"> / {period === "monthly" ? "month" : "year"}</span>
                  </p>
                  {creditBased ? (
                    <p className="mt-1 text-sm text-slate-600">{plan.monthlyCredits.toLocaleString("en")} credits every month</p>
                  ) : null}
                  <div className="mt-auto pt-4">
                    {isCurrent ? (
                      <span className="inline-block rounded-md bg-brand-50 px-3 py-2 text-sm font-medium text-brand-700">
                        Your current plan
                      </span>
                    ) : running ? (
                      <ActionButton className="w-full" disabled={busy !== null || !variantId} onClick={() => changePlan(variantId)}>
                        {busy === `change:${variantId}` ? "Switching…" : `Switch to ${plan.name}`}
                      </ActionButton>
                    ) : (
                      <ActionButton primary className="w-full" disabled={busy !== null || !variantId} onClick={() => subscribe(variantId)}>
                        {busy === `checkout:${variantId}` ? "Opening checkout…" : `Subscribe to ${plan.name}`}
                      </ActionButton>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </>
  );
}
