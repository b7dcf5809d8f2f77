"use client";

import Link from "next/link";
import { ConfirmForm } from "@/components/admin/confirm-form";
import type { AdminDelivery, AdminReplay } from "@/components/admin-types";
import { apiJson, formatDate } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { Banner, Card, PageHeader, Spinner, Stat } from "@/components/ui";
import { useApi } from "@/components/use-api";

/** One delivery: what arrived (the stored payload), what happened, and a replay. */
export function WebhookDetail({ id }: { id: string }) {
  const { data, error, loading, reload } = useApi<AdminDelivery>(`/api/admin/webhooks/${encodeURIComponent(id)}`);
  if (error && !data) return <ErrorNotice error={error} />;
  if (loading && !data) return <Spinner />;
  if (!data) return null;
  return (
    <>
      <PageHeader
        title={data.eventType}
        description={
          <>
            {data.source} delivery <code>{data.deliveryId.slice(0, 24)}</code>
          </>
        }
        actions={
          <Link className="btn-secondary" href="/admin/webhooks">
            All deliveries
          </Link>
        }
      />
      {data.status === "failed" ? (
        <Banner tone="danger" title="Processing failed">
          {data.error}
        </Banner>
      ) : data.status === "pending" ? (
        <Banner tone="warning" title="Kept until what it needs arrives">
          {data.error}
        </Banner>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-3">
        <Card id="delivery" title="Delivery" className="lg:col-span-2">
          <dl className="mt-3 grid grid-cols-2 gap-4 sm:grid-cols-3">
            <Stat label="Status" value={<span data-testid="delivery-status">{data.status}</span>} />
            <Stat label="Received" value={formatDate(data.receivedAt, true)} />
            <Stat label="Processed" value={formatDate(data.processedAt, true)} />
            <Stat label="Object" value={<span className="text-sm">{data.objectId ?? "—"}</span>} />
            <Stat label="Buyer email" value={<span className="text-sm">{data.userEmail ?? "—"}</span>} />
            <Stat label="User ref" value={<span className="text-sm">{data.userRef ?? "—"}</span>} />
          </dl>
          <h3 className="mt-4 text-sm font-semibold">Payload (as received; signatures are never stored)</h3>
          <pre className="mt-2 max-h-96 overflow-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100" tabIndex={0} aria-label="Payload">
            {JSON.stringify(data.payload, null, 2)}
          </pre>
        </Card>
        <section className="card">
          <ConfirmForm
            title="Replay this delivery"
            summary={`Run this ${data.eventType} again through the ${data.source} webhook processing. Its effects are idempotent: an order already granted grants nothing new.`}
            confirmLabel="Confirm replay"
            run={async (reason) => {
              const r = await apiJson<AdminReplay>(`/api/admin/webhooks/${data.id}/replay`, { method: "POST", json: { reason } });
              return `Replayed: ${r.status} (${r.result}).`;
            }}
            onDone={reload}
          />
        </section>
      </div>
    </>
  );
}
