import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { formatMoney } from "@/components/api";
import { getSessionUser } from "@/lib/auth/session";
import { runningSubscription } from "@/lib/billing/subscriptions/current-subscription";
import { flags } from "@/lib/config/flags";
import { pricingCatalog } from "@/lib/config/pricing";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Pricing" };

/**
 * The public pricing page: the catalog's plans, each bought through the registration-first checkout
 * (GET /api/payments/create-checkout?tier=&billing=), which attaches the purchase to the account that
 * signs in with the buyer's email. A signed-in visitor's checkout is prefilled with their own email,
 * so the purchase attaches to their account; one whose subscription is running is sent to the
 * dashboard's plan change instead (a second checkout would be a second subscription, which the
 * account-bound checkout refuses too). Checkouts that are cancelled come back here.
 */
export default async function PricingPage() {
  const signedIn = await getSessionUser(new Request("http://localhost/pricing", { headers: await headers() }));
  const prefill = signedIn?.email ? `&email=${encodeURIComponent(signedIn.email)}` : "";
  const subscribed = signedIn ? await runningSubscription(signedIn.id).catch(() => null) : null;
  const f = flags();
  const catalog = pricingCatalog();
  const tiers = catalog.tiers.filter((t) => t.key !== "free" || f.freeTier);
  const money = (amount: number) => formatMoney(amount, catalog.currency);
  return (
    <main id="main" className="mx-auto max-w-5xl px-6 py-12">
      <Link href="/" className="text-sm font-semibold uppercase tracking-wider text-brand-600">
        Subscription AI Service
      </Link>
      <h1 className="mt-2 text-3xl font-bold tracking-tight">Pricing</h1>
      <p className="mt-2 text-slate-600">
        {f.creditBased
          ? "Every plan comes with a monthly credit allocation for the AI features; bonus credit packages top it up."
          : `Every paid plan starts with a ${catalog.trialDays}-day free trial.`}
      </p>
      <ul className="mt-8 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        {tiers.map((t) => (
          <li key={t.key} className="card flex flex-col">
            <h2>{t.name}</h2>
            <p className="mt-2 text-2xl font-semibold">
              {t.monthlyPrice === 0 ? "Free" : money(t.monthlyPrice)}
              {t.monthlyPrice === 0 ? null : <span className="text-sm font-normal text-slate-500"> / month</span>}
            </p>
            {t.yearlyPrice > 0 ? <p className="text-sm text-slate-500">or {money(t.yearlyPrice)} / year</p> : null}
            {f.creditBased ? <p className="mt-2 text-sm">{t.monthlyCredits.toLocaleString("en")} credits a month</p> : null}
            <div className="mt-auto flex flex-wrap gap-2 pt-4">
              {t.key === "free" ? (
                subscribed ? (
                  <Link href="/dashboard/billing" className="btn-secondary">
                    Change plan
                  </Link>
                ) : signedIn ? (
                  <Link href="/dashboard" className="btn-primary">
                    Your plan
                  </Link>
                ) : (
                  <Link href="/signin" className="btn-secondary">
                    Start free
                  </Link>
                )
              ) : !f.payments ? (
                <p className="text-sm text-slate-500">Not on sale here</p>
              ) : subscribed ? (
                <Link href="/dashboard/billing" className={subscribed.tier === t.key ? "btn-primary" : "btn-secondary"}>
                  {subscribed.tier === t.key ? "Your plan" : "Change plan"}
                </Link>
              ) : (
                <>
                  <a href={`/api/payments/create-checkout?tier=${t.key}&billing=monthly${prefill}`} className="btn-primary">
                    Buy monthly
                  </a>
                  {t.yearlyPrice > 0 ? (
                    <a href={`/api/payments/create-checkout?tier=${t.key}&billing=yearly${prefill}`} className="btn-secondary">
                      Yearly
                    </a>
                  ) : null}
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
      <p className="mt-8 text-sm text-slate-600">
        {signedIn?.email ? <>Signed in as {signedIn.email}: a purchase here is added to this account. </> : "Already have an account? "}
        <Link href="/dashboard/billing" className="link">
          Manage your plan in the dashboard
        </Link>
        .
      </p>
    </main>
  );
}
