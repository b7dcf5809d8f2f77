"use client";

import { useState, type FormEvent } from "react";
import { apiJson, formatDate, formatMoney, toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { Pending } from "@/components/paged-list";
import type { AutoRecharge } from "@/components/types";
import { Banner } from "@/components/ui";
import { useApi } from "@/components/use-api";

const STATUS: Record<string, string> = { claimed: "Starting", processing: "Paying", succeeded: "Bought", failed: "Failed" };

/**
 * Auto-recharge (Stripe): under a threshold, a pack is bought with the saved card, within the month's
 * limits. Shown to the account's owner and admins (the API answers 403 to other members: nothing shown).
 */
export function AutoRechargePanel({ currency }: { currency: string }) {
  const resource = useApi<AutoRecharge>("/api/credits/auto-recharge");
  const { data, error } = resource;
  const [saveError, setSaveError] = useState<ApiError | null>(null);
  const [saving, setSaving] = useState(false);
  if (error?.status === 403) return null;
  if (!data) {
    return (
      <section className="card" aria-labelledby="recharge-heading">
        <h2 id="recharge-heading">Auto-recharge</h2>
        <Pending resource={resource} label="Loading auto-recharge" />
      </section>
    );
  }
  const s = data.settings;

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSaving(true);
    setSaveError(null);
    try {
      const answer = await apiJson<AutoRecharge>("/api/credits/auto-recharge", {
        method: "PUT",
        json: {
          enabled: form.get("enabled") === "on",
          threshold: Number(form.get("threshold")),
          variantId: String(form.get("variantId")),
          monthlyMaxCount: Number(form.get("monthlyMaxCount")),
          monthlyMaxAmount: Math.round(Number(form.get("monthlyMaxAmount")) * 100),
        },
      });
      resource.setData(answer);
    } catch (e) {
      setSaveError(toApiError(e));
    } finally {
      setSaving(false);
    }
  }

  return (
    <section className="card" aria-labelledby="recharge-heading" data-testid="auto-recharge">
      <h2 id="recharge-heading">Auto-recharge</h2>
      <p className="mt-1 text-sm text-slate-600">
        When a charge leaves your balance under the threshold, the pack is bought with your saved card
        {data.card ? ` (${data.card})` : ""}, at most as often and as much per month as you allow.
      </p>
      {s?.pausedAt ? (
        <Banner tone="danger" title="Auto-recharge is paused" role="alert">
          The last top-up failed: {s.pausedReason}. Update your card in the billing portal, then save auto-recharge on again.
        </Banner>
      ) : null}
      {!data.available && data.unavailableReason ? <p className="mt-3 text-sm text-slate-600">{data.unavailableReason}</p> : null}
      {data.packages.length > 0 && (data.available || s) ? (
        <form className="mt-4 grid gap-3 sm:grid-cols-2" onSubmit={save}>
          <label className="flex items-center gap-2 sm:col-span-2">
            <input type="checkbox" name="enabled" defaultChecked={s?.enabled ?? false} data-testid="recharge-enabled" />
            Recharge automatically
          </label>
          <label className="text-sm">
            When the balance falls under (credits)
            <input
              className="input mt-1 w-full"
              type="number"
              name="threshold"
              min={0}
              defaultValue={s?.threshold ?? 100}
              required
              data-testid="recharge-threshold"
            />
          </label>
          <label className="text-sm">
            Buy
            <select
              className="input mt-1 w-full"
              name="variantId"
              defaultValue={s?.variantId ?? data.packages[0].variantId}
              data-testid="recharge-pack"
            >
              {data.packages.map((p) => (
                <option key={p.variantId} value={p.variantId}>
                  {p.credits.toLocaleString("en")} credits for {formatMoney(p.price, currency)}
                </option>
              ))}
            </select>
          </label>
          <label className="text-sm">
            At most this many times a month
            <input
              className="input mt-1 w-full"
              type="number"
              name="monthlyMaxCount"
              min={1}
              max={100}
              defaultValue={s?.monthlyMaxCount ?? 3}
              required
            />
          </label>
          <label className="text-sm">
            At most this much a month ({currency})
            <input
              className="input mt-1 w-full"
              type="number"
              name="monthlyMaxAmount"
              min={0.01}
              step={0.01}
              defaultValue={((s?.monthlyMaxAmount ?? Math.round(data.packages[0].price * 300)) / 100).toFixed(2)}
              required
            />
          </label>
          <div className="sm:col-span-2">
            <ErrorNotice error={saveError} onDismiss={() => setSaveError(null)} />
            <button type="submit" className="btn-primary" disabled={saving} data-testid="recharge-save">
              {saving ? "Saving…" : "Save"}
            </button>
          </div>
        </form>
      ) : null}
      <p className="mt-3 text-sm text-slate-600">
        This month: {data.thisMonth.count} top-up{data.thisMonth.count === 1 ? "" : "s"},{" "}
        {formatMoney(data.thisMonth.amount / 100, currency)}.
      </p>
      {data.recent.length > 0 ? (
        <ul className="mt-2 text-sm" data-testid="recharge-history">
          {data.recent.map((r) => (
            <li key={r.id} data-testid={`recharge-${r.status}`}>
              {formatDate(r.createdAt)}: {r.credits.toLocaleString("en")} credits, {formatMoney(r.amount / 100, currency)} —{" "}
              {STATUS[r.status] ?? r.status}
              {r.error ? ` (${r.error})` : ""}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
