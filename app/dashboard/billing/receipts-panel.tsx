"use client";

import { formatDate, formatMoney } from "@/components/api";
import { Pending } from "@/components/paged-list";
import type { Receipts } from "@/components/types";
import { useApi } from "@/components/use-api";

const STATUS: Record<string, string> = {
  paid: "Paid",
  partially_refunded: "Partly refunded",
  refunded: "Refunded",
  disputed: "Disputed (credits frozen)",
  charged_back: "Charged back",
};

/** Every payment of the account, with its provider receipt; refunds say what they took back. */
export function ReceiptsPanel() {
  const resource = useApi<Receipts>("/api/payments/receipts");
  const { data } = resource;
  return (
    <section className="card mb-6" data-testid="receipts">
      <h2 className="mb-3 text-base font-semibold">Payments</h2>
      {!data ? (
        <Pending resource={resource} label="Loading payments" />
      ) : data.payments.length === 0 ? (
        <p className="text-sm text-slate-600">No payments yet.</p>
      ) : (
        <table className="w-full text-sm">
          <thead>
            <tr className="text-left text-slate-500">
              <th className="py-1">Date</th>
              <th>Item</th>
              <th>Amount</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {data.payments.map((p) => (
              <tr key={p.id} className="border-t border-slate-100" data-testid={`receipt-${p.status}`}>
                <td className="py-1">{formatDate(p.paidAt)}</td>
                <td>{p.description}</td>
                <td>{formatMoney(p.amount / 100, p.currency)}</td>
                <td>
                  {STATUS[p.status] ?? p.status}
                  {p.refundedAmount > 0 ? ` (${formatMoney(p.refundedAmount / 100, p.currency)})` : ""}
                  {p.creditsTakenBack > 0 ? `: ${p.creditsTakenBack.toLocaleString("en")} credits taken back` : ""}
                </td>
                <td className="text-right">
                  {p.receiptUrl ? (
                    <a className="text-brand-700 underline" href={p.receiptUrl} target="_blank" rel="noreferrer">
                      Receipt
                    </a>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
