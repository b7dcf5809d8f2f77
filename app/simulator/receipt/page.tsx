import { loadSimulatedReceipt } from "@/lib/simulator/refund-simulated-payment";

export const dynamic = "force-dynamic";

const box = { fontFamily: "system-ui, sans-serif", maxWidth: 560, margin: "4rem auto", padding: "0 1rem" } as const;

const money = (cents: number, currency: string) => `${currency} ${(cents / 100).toFixed(2)}`;

function Refund({ token, amount, label }: { token: string; amount: "full" | "half"; label: string }) {
  return (
    <form method="post" action="/api/simulator/refund" style={{ display: "inline-block", marginRight: 8 }}>
      <input type="hidden" name="token" value={token} />
      <input type="hidden" name="amount" value={amount} />
      <button type="submit">{label}</button>
    </form>
  );
}

/** The local checkout simulator's receipt (stands in for Lemon Squeezy's), with the refunds an operator would issue. */
export default async function SimulatedReceiptPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string; message?: string; error?: string }>;
}) {
  const { token, message, error } = await searchParams;
  const view = await loadSimulatedReceipt(token);
  if (!view) {
    return (
      <main style={box}>
        <h1>Receipt not found</h1>
        <p>This receipt link does not exist or has expired (links are valid for 24 hours). Open it again from your billing page.</p>
      </main>
    );
  }
  const p = view.payment;
  return (
    <main style={box}>
      <p style={{ background: "#fff3cd", padding: "0.5rem 0.75rem", borderRadius: 4 }}>
        Local receipt (checkout simulator): the refund buttons do what an operator does in Lemon Squeezy&apos;s dashboard, and deliver the
        signed refund webhook to this app.
      </p>
      <h1>Receipt</h1>
      {message ? <p role="status">{message}</p> : null}
      {error ? (
        <p role="alert" style={{ color: "#b00020" }}>
          {error}
        </p>
      ) : null}
      <dl>
        <dt>Item</dt>
        <dd>{p.description}</dd>
        <dt>Paid</dt>
        <dd>
          {money(p.amount, p.currency)} on {p.paidAt.toISOString().slice(0, 10)}
        </dd>
        <dt>Status</dt>
        <dd>
          {p.status.replace("_", " ")}
          {p.refundedAmount > 0 ? ` (${money(p.refundedAmount, p.currency)} refunded)` : ""}
        </dd>
      </dl>
      {p.refundedAmount < p.amount ? (
        <>
          <h2>Simulate a refund</h2>
          <p>
            <Refund token={view.token} amount="half" label="Refund half" />
            <Refund token={view.token} amount="full" label="Refund in full" />
          </p>
        </>
      ) : null}
    </main>
  );
}
