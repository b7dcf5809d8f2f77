"use client";

import { UsageChart } from "@/components/usage-chart";
import Link from "next/link";
import { useState } from "react";
import { apiJson, formatDate, formatMoney, formatProviderCost, toApiError, type ApiError } from "@/components/api";
import { DataTable } from "@/components/data-table";
import { ErrorNotice } from "@/components/error-notice";
import type {
  BonusPackages,
  CheckoutUrl,
  CreditHistory,
  CreditPreferences,
  CreditPreferencesUpdated,
  Features,
  Usage,
} from "@/components/types";
import { Banner, EmptyState, Meter, PageHeader, Spinner, Stat } from "@/components/ui";
import { LIST_PAGE_SIZE, OffsetPager } from "@/components/paged-list";
import { useApi } from "@/components/use-api";
import { AutoRechargePanel } from "./auto-recharge-panel";

const TYPE_LABEL: Record<string, string> = {
  usage: "Usage",
  purchase: "Purchase",
  refund: "Refund",
  // Every plan allocation (first, monthly, at a subscription's start or renewal, on an upgrade).
  monthly_reset: "Allocation",
  adjustment: "Adjustment",
};

const OPERATION_LABEL: Record<string, string> = {
  chat: "Chat",
  chat_batch: "Batch chat",
  stream: "Streaming chat",
  stream_image: "Streaming chat with image",
  speech_to_text: "Speech to text",
  image_generation: "Image generation",
  content_generation: "Content generation",
  rag_ask: "Knowledge question",
  rag_index: "Document indexing",
  embeddings: "Embeddings",
  initial_allocation: "Initial allocation",
  monthly_reset: "Monthly allocation",
  monthly_rollover: "Monthly rollover",
  subscription_start: "Subscription started",
  subscription_renewal: "Subscription renewed",
  subscription_expired: "Subscription ended",
  plan_upgrade: "Plan upgrade",
  bonus_purchase: "Bonus package",
  bonus_expiry: "Bonus credits expired",
  admin_adjustment: "Adjusted by support",
};

/** An operation's words: its label, else its name said plainly ("some_thing" → "Some thing"). */
const operationLabel = (operation: string) =>
  OPERATION_LABEL[operation] ?? (operation.charAt(0).toUpperCase() + operation.slice(1)).replace(/_/g, " ");

interface Props {
  features: Features;
  currency: string;
  bonusExpiryDays: number;
  purchaseSuccess: boolean;
}

export function CreditsPanel({ features, currency, bonusExpiryDays, purchaseSuccess }: Props) {
  const { data: usage, error: usageError, reload: loadUsage } = useApi<Usage>("/api/ai/usage");

  return (
    <>
      <PageHeader
        title={features.creditBased ? "Credits" : "Usage"}
        description={
          features.creditBased
            ? "Every AI request costs credits. Your plan's credits renew every month; bonus packages add more that last longer."
            : "Your plan includes unlimited AI usage. The history lists every recorded operation."
        }
      />
      {purchaseSuccess ? (
        <Banner tone="success" title="Purchase complete">
          Thank you! Your bonus credits are added as soon as the payment is confirmed (usually within seconds).
          {features.userToggle ? " They are spent only while bonus auto-use is on (below)." : ""}{" "}
          <button type="button" className="link" onClick={() => void loadUsage()}>
            Refresh balance
          </button>
        </Banner>
      ) : null}
      <ErrorNotice error={usageError} />
      {usage?.debt ? (
        <Banner tone="danger" title="A refund took back credits already spent" role="alert">
          <span data-testid="usage-debt">
            This account owes {usage.debt.toLocaleString("en")} credits, so AI calls are paused. Credits you buy pay the debt first, then
            calls resume. The Payments list on the billing page shows the refund.
          </span>
        </Banner>
      ) : null}
      {usage ? <UsageCard usage={usage} /> : !usageError ? <Spinner label="Loading your credits" /> : null}
      <div className="mt-6 grid gap-6 lg:grid-cols-2">
        {features.bonusCredits ? (
          <BonusSection currency={currency} bonusExpiryDays={bonusExpiryDays} autoUseToggle={features.userToggle} />
        ) : null}
        {features.bonusCredits ? <AutoRechargePanel currency={currency} /> : null}
        {features.creditBased ? <AutoUseSection toggleEnabled={features.userToggle} onChange={loadUsage} /> : null}
      </div>
      {features.creditBased ? <UsageChart /> : null}
      <HistorySection />
    </>
  );
}

function UsageCard({ usage }: { usage: Usage }) {
  if (usage.unlimited) {
    return (
      <section className="card" aria-labelledby="usage-heading">
        <h2 id="usage-heading">Usage</h2>
        <p className="mt-2 text-sm text-slate-600">Unlimited: your plan does not charge credits for AI features.</p>
      </section>
    );
  }
  return (
    <section className="card" aria-labelledby="usage-heading">
      <h2 id="usage-heading">This month</h2>
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Stat
          label="Remaining"
          value={<span data-testid="usage-remaining">{usage.remaining.toLocaleString("en")}</span>}
          hint={`of ${usage.monthlyLimit.toLocaleString("en")}`}
        />
        <Stat label="Used" value={usage.used.toLocaleString("en")} />
        <Stat label="Bonus credits" value={<span data-testid="usage-bonus">{usage.bonusCredits.toLocaleString("en")}</span>} />
        <Stat label="Plan" value={<span className="capitalize">{usage.tier}</span>} hint={`Renews ${formatDate(usage.nextResetAt)}`} />
      </dl>
      <div className="mt-4">
        <Meter value={usage.remaining} max={usage.monthlyLimit} label="Monthly credits remaining" />
      </div>
    </section>
  );
}

function BonusSection({ currency, bonusExpiryDays, autoUseToggle }: { currency: string; bonusExpiryDays: number; autoUseToggle: boolean }) {
  const { data, error: loadError } = useApi<BonusPackages>("/api/credits/bonus-packages");
  const [buyError, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const error = buyError ?? loadError;

  async function buy(variantId: string) {
    setBusy(variantId);
    setError(null);
    try {
      const { checkoutUrl } = await apiJson<CheckoutUrl>("/api/credits/checkout", { method: "POST", json: { variantId } });
      window.location.assign(checkoutUrl);
    } catch (e) {
      setError(toApiError(e));
      setBusy(null);
    }
  }

  return (
    <section className="card" aria-labelledby="bonus-heading">
      <h2 id="bonus-heading">Bonus credit packages</h2>
      <p className="mt-1 text-sm text-slate-600">
        One-time purchases, valid for {bonusExpiryDays} days.
        {autoUseToggle
          ? " Bonus credits are spent only while auto-use is on (off until you switch it on): your plan's credits go first either way."
          : ""}
      </p>
      <div className="mt-4">
        <ErrorNotice error={error} onDismiss={buyError ? () => setError(null) : undefined} />
        {!data && !error ? <Spinner label="Loading packages" /> : null}
        {data && data.packages.length === 0 ? (
          <EmptyState title="No packages for the free plan">
            <Link href="/dashboard/billing" className="link">
              Choose a paid plan
            </Link>{" "}
            to buy bonus credits.
          </EmptyState>
        ) : null}
        {data && data.packages.length > 0 ? (
          <>
            <ul className="grid gap-3 sm:grid-cols-2">
              {data.packages.map((p) => (
                <li key={p.variantId} className="rounded-lg border border-slate-200 p-4" data-testid="bonus-package">
                  <p className="text-lg font-semibold">{p.credits.toLocaleString("en")} credits</p>
                  <p className="text-sm text-slate-600">{formatMoney(p.price, currency)}</p>
                  <button
                    type="button"
                    className="btn-primary mt-3 w-full"
                    disabled={busy !== null || !data.canPurchaseMore || data.monthlyPurchasedCredits + p.credits > data.monthlyLimit}
                    onClick={() => buy(p.variantId)}
                  >
                    {busy === p.variantId ? "Opening checkout…" : `Buy ${p.credits.toLocaleString("en")} credits`}
                  </button>
                </li>
              ))}
            </ul>
            <p className="mt-3 text-sm text-slate-600">
              Bought this month: {data.monthlyPurchasedCredits.toLocaleString("en")} of {data.monthlyLimit.toLocaleString("en")} credits.
              {!data.canPurchaseMore ? " You reached this month's limit; more can be bought next month." : ""}
            </p>
          </>
        ) : null}
      </div>
    </section>
  );
}

function AutoUseSection({ toggleEnabled, onChange }: { toggleEnabled: boolean; onChange: () => Promise<void> }) {
  const prefs = useApi<CreditPreferences>(toggleEnabled ? "/api/credits/preferences" : null);
  const value = prefs.data?.bonusCreditsAutoUse ?? null;
  const [saveError, setError] = useState<ApiError | null>(null);
  const error = saveError ?? prefs.error;
  const [busy, setBusy] = useState(false);

  async function toggle() {
    if (value === null) return;
    setBusy(true);
    setError(null);
    try {
      const res = await apiJson<CreditPreferencesUpdated>("/api/credits/preferences", {
        method: "PATCH",
        json: { bonusCreditsAutoUse: !value },
      });
      // Keep the rest of the preferences (userToggleEnabled): the PATCH answer carries only the new value.
      prefs.setData({ ...(prefs.data ?? { userToggleEnabled: true }), bonusCreditsAutoUse: res.bonusCreditsAutoUse });
      void onChange();
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="autouse-heading">
      <h2 id="autouse-heading">Bonus credit use</h2>
      {toggleEnabled ? (
        <>
          <p className="mt-1 text-sm text-slate-600">
            When your monthly credits run out, use bonus credits automatically (oldest expiry first). When off, requests that need more than
            your monthly credits are refused instead.
          </p>
          <ErrorNotice error={error} />
          {value === null && !error ? <Spinner /> : null}
          {value !== null ? (
            <div className="mt-4 flex items-center gap-3">
              <button
                type="button"
                role="switch"
                aria-checked={value}
                aria-labelledby="autouse-label"
                onClick={toggle}
                disabled={busy}
                className={`relative inline-flex h-6 w-11 shrink-0 rounded-full transition-colors ${value ? "bg-brand-600" : "bg-slate-300"}`}
              >
                <span
                  className={`absolute top-0.5 h-5 w-5 rounded-full bg-white shadow transition-all ${value ? "left-5.5" : "left-0.5"}`}
                />
              </button>
              <span id="autouse-label" className="text-sm font-medium">
                Use bonus credits automatically: {value ? "on" : "off"}
              </span>
            </div>
          ) : null}
        </>
      ) : (
        <p className="mt-1 text-sm text-slate-600">Bonus credits are used automatically once your monthly credits run out.</p>
      )}
    </section>
  );
}

/** What an AI call's row recorded: tokens (or images, audio), and what the AI provider charged for it. */
function usageOf(m: Record<string, unknown> | undefined): string {
  if (!m) return "—";
  const num = (v: unknown) => (typeof v === "number" ? v.toLocaleString("en") : null);
  const parts = [
    num(m.promptTokens) !== null ? `${num(m.promptTokens)} in` : null,
    num(m.cachedPromptTokens) ? `${num(m.cachedPromptTokens)} cached` : null,
    num(m.completionTokens) !== null ? `${num(m.completionTokens)} out` : null,
    typeof m.images === "number" ? `${m.images} image${m.images === 1 ? "" : "s"}` : null,
    typeof m.audioSeconds === "number" ? `${m.audioSeconds} s audio` : null,
    typeof m.costMicros === "number" ? `${formatProviderCost(m.costMicros / 1e6)} provider cost` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(" · ") : "—";
}

function HistorySection() {
  const thisYear = new Date().getUTCFullYear();
  const [year, setYear] = useState(thisYear);
  const [offset, setOffset] = useState(0);
  const { data, error, loading } = useApi<CreditHistory>(`/api/credits/history?year=${year}&limit=${LIST_PAGE_SIZE}&offset=${offset}`);
  const years = [...new Set([thisYear, year, ...(data?.availableYears ?? [])])].sort((a, b) => b - a);

  const total = data?.totalCount ?? 0;
  const page = Math.floor(offset / LIST_PAGE_SIZE) + 1;
  const pages = Math.max(1, Math.ceil(total / LIST_PAGE_SIZE));

  return (
    <section className="card mt-6" aria-labelledby="history-heading">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h2 id="history-heading">History</h2>
        <div className="flex items-end gap-3">
          <a className="btn-secondary" href={`/api/credits/history?year=${year}&format=csv`} download>
            Download CSV
          </a>
          <div>
            <label htmlFor="history-year" className="field-label">
              Year
            </label>
            <select
              id="history-year"
              className="input w-32"
              value={year}
              onChange={(e) => {
                setYear(Number(e.target.value));
                setOffset(0);
              }}
            >
              {years.map((y) => (
                <option key={y} value={y}>
                  {y}
                </option>
              ))}
            </select>
          </div>
        </div>
      </div>
      <div className="mt-4" aria-live="polite" aria-busy={loading}>
        <ErrorNotice error={error} />
        {loading && !data ? <Spinner label="Loading history" /> : null}
        {data && data.transactions.length === 0 ? (
          <EmptyState title={`No transactions in ${year}`}>Credits you receive and spend show up here.</EmptyState>
        ) : null}
        {data && data.transactions.length > 0 ? (
          <DataTable
            testId="history-table"
            label={`Credit transactions in ${year}, newest first`}
            rows={data.transactions}
            columns={[
              { header: "Date", cell: (t) => formatDate(t.createdAt, true), cellClass: () => "whitespace-nowrap text-slate-600" },
              { header: "Type", cell: (t) => TYPE_LABEL[t.type] ?? t.type },
              { header: "Operation", cell: (t) => operationLabel(t.operation) },
              {
                header: "Amount",
                align: "right",
                cell: (t) => `${t.amount > 0 ? "+" : ""}${t.amount.toLocaleString("en")}`,
                cellClass: (t) => `font-medium tabular-nums ${t.amount < 0 ? "text-red-700" : "text-emerald-700"}`,
              },
              { header: "Balance", align: "right", cell: (t) => t.balanceAfter.toLocaleString("en"), cellClass: () => "tabular-nums" },
              {
                header: "Model",
                cell: (t) => (typeof t.metadata?.model === "string" ? t.metadata.model : "—"),
                cellClass: () => "text-slate-500",
              },
              { header: "Usage", cell: (t) => usageOf(t.metadata), cellClass: () => "text-xs text-slate-500" },
            ]}
            rowKey={(t) => t.id}
          />
        ) : null}
      </div>
      {data ? (
        <OffsetPager
          offset={offset}
          total={total}
          onChange={setOffset}
          busy={loading}
          label="History pages"
          position={`Page ${page} of ${pages} (${total} transactions)`}
        />
      ) : null}
    </section>
  );
}
