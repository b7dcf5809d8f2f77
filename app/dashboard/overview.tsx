"use client";

import Link from "next/link";
import { formatDate } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import type { Features, SubscriptionDetails, Usage, UserStatus } from "@/components/types";
import { Banner, Meter, PageHeader, Spinner, Stat } from "@/components/ui";
import { useApi } from "@/components/use-api";

const STATUS_TEXT: Record<string, string> = {
  free: "Free plan",
  trialing: "Trial",
  active_subscriber: "Active subscription",
  cancelled: "Cancelled (active until the period ends)",
  past_due: "Payment past due",
  unpaid: "Unpaid",
  paused: "Paused",
};

export function Overview({ features, checkoutSuccess }: { features: Features; checkoutSuccess: boolean }) {
  const statusRes = useApi<UserStatus>("/api/user/status");
  const usageRes = useApi<Usage>("/api/ai/usage");
  const subRes = useApi<SubscriptionDetails>("/api/payments/subscription");
  const status = statusRes.data;
  const usage = usageRes.data;
  const sub = subRes.data;
  const error = statusRes.error ?? usageRes.error ?? subRes.error;

  const tools = [
    features.aiChat && { href: "/dashboard/ai", title: "Chat", text: "Streamed answers, with image input." },
    features.aiImage && { href: "/dashboard/ai/image", title: "Images", text: "Generate images from a prompt." },
    features.aiContent && { href: "/dashboard/ai/content", title: "Content", text: "Emails, posts and copy from templates." },
    features.aiAudio && { href: "/dashboard/ai/speech", title: "Speech to text", text: "Record or upload audio." },
    features.aiRag && { href: "/dashboard/knowledge", title: "Knowledge", text: "Ask questions about documents." },
    { href: "/dashboard/files", title: "Files", text: "Upload, open and delete files." },
  ].filter(Boolean) as { href: string; title: string; text: string }[];

  return (
    <>
      <PageHeader title="Overview" description="Your plan, your credits and everything you can do with them." />
      {checkoutSuccess ? (
        <Banner tone="success" title="Thank you for your purchase!">
          {sub && !sub.isFreePlan ? (
            `Your ${sub.planName} plan is active.`
          ) : (
            <>
              Your subscription is being activated; it shows here as soon as the payment provider confirms it.{" "}
              <button
                type="button"
                className="link"
                onClick={() => void Promise.all([statusRes.reload(), usageRes.reload(), subRes.reload()])}
              >
                Refresh
              </button>
            </>
          )}
        </Banner>
      ) : null}
      {status?.isLocked ? (
        <Banner tone="danger" title="Your account is locked">
          Paid features are unavailable while the account is locked. Contact support to unlock it.
        </Banner>
      ) : null}
      {status?.needsAction ? (
        <Banner tone="warning" title="Action needed: your last payment failed" role="alert">
          Update your payment method in the{" "}
          <Link className="link" href="/dashboard/billing">
            billing portal
          </Link>{" "}
          to keep your plan.
        </Banner>
      ) : null}
      <ErrorNotice error={error} />
      {!(status && usage && sub) && !error ? <Spinner label="Loading your account" /> : null}
      {status && usage && sub ? (
        <div className="grid gap-4 md:grid-cols-2">
          <section className="card" aria-labelledby="plan-heading">
            <h2 id="plan-heading">Plan</h2>
            <dl className="mt-4 grid grid-cols-2 gap-4">
              <Stat
                label="Plan"
                value={<span data-testid="plan-name">{sub.planName}</span>}
                hint={sub.isFreePlan ? "No subscription" : sub.billingPeriod}
              />
              <Stat
                label="Status"
                value={<span data-testid="account-status">{STATUS_TEXT[status.status] ?? status.status}</span>}
                hint={status.isTrial ? "Trial" : undefined}
              />
              {sub.subscription?.currentPeriodEnd ? (
                <Stat
                  label={sub.subscription.endsAt ? "Ends" : "Renews"}
                  value={formatDate(sub.subscription.endsAt ?? sub.subscription.currentPeriodEnd)}
                />
              ) : null}
              {sub.subscription?.trialEndsAt && status.isTrial ? (
                <Stat label="Trial ends" value={formatDate(sub.subscription.trialEndsAt)} />
              ) : null}
            </dl>
            <Link href="/dashboard/billing" className="btn-secondary mt-5">
              {sub.isFreePlan ? "Choose a plan" : "Manage billing"}
            </Link>
          </section>
          <section className="card" aria-labelledby="credits-heading">
            <h2 id="credits-heading">Credits</h2>
            {usage.unlimited ? (
              <p className="mt-4 text-sm text-slate-600">Your plan has unlimited AI usage; nothing is charged in credits.</p>
            ) : (
              <>
                <p className="mt-4 text-3xl font-semibold" data-testid="credits-remaining">
                  {usage.remaining.toLocaleString("en")}
                  <span className="text-base font-normal text-slate-500"> / {usage.monthlyLimit.toLocaleString("en")} this month</span>
                </p>
                <div className="mt-3">
                  <Meter value={usage.remaining} max={usage.monthlyLimit} label="Subscription credits remaining" />
                </div>
                <dl className="mt-4 grid grid-cols-2 gap-4">
                  <Stat label="Used" value={usage.used.toLocaleString("en")} />
                  <Stat label="Bonus credits" value={usage.bonusCredits.toLocaleString("en")} />
                </dl>
                <p className="mt-3 text-xs text-slate-500">
                  Renews {formatDate(usage.nextResetAt)} (last reset {formatDate(usage.resetAt)}).
                </p>
              </>
            )}
            <Link href="/dashboard/credits" className="btn-secondary mt-5">
              {features.creditBased ? "Credits and history" : "Usage history"}
            </Link>
          </section>
        </div>
      ) : null}
      <section className="mt-8" aria-labelledby="tools-heading">
        <h2 id="tools-heading">What you can do</h2>
        <ul className="mt-3 grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
          {tools.map((t) => (
            <li key={t.href}>
              <Link href={t.href} className="card block h-full hover:border-brand-500">
                <span className="font-semibold text-slate-900">{t.title}</span>
                <span className="mt-1 block text-sm text-slate-600">{t.text}</span>
              </Link>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
