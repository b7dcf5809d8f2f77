import { describeSimulatedCheckout } from "@/lib/billing/simulator-views";
import { simulatorEnabled } from "@/lib/billing/payment-provider";

export const dynamic = "force-dynamic";

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const box = { fontFamily: "system-ui, sans-serif", maxWidth: 480, margin: "4rem auto", padding: "0 1rem" } as const;

/** The local checkout simulator's checkout page (stands in for Lemon Squeezy's hosted checkout). */
export default async function SimulatedCheckoutPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<{ error?: string }> }) {
  const { id } = await params;
  const { error } = await searchParams;
  const view = simulatorEnabled() ? await describeSimulatedCheckout(safeDecode(id)) : null;
  if (!view) {
    return (
      <main style={box}>
        <h1>Checkout not found</h1>
        <p>This checkout does not exist or has expired (checkouts are valid for 24 hours). Start again from the pricing page.</p>
      </main>
    );
  }
  return (
    <main style={box}>
      <p style={{ background: "#fff3cd", padding: "0.5rem 0.75rem", borderRadius: 4 }}>
        Local checkout simulator: no payment is taken. Completing the purchase delivers signed payment webhooks to this app.
      </p>
      <h1>{view.title}</h1>
      <p>{view.detail}</p>
      <p>
        <strong>
          {view.currency} {view.price.toFixed(2)}
        </strong>
        {view.kind === "plan" ? (view.title.includes("yearly") ? " per year" : " per month") : " once"}
        {view.trialDays > 0 ? ` after a ${view.trialDays}-day free trial` : ""}
      </p>
      {view.discountCode ? <p>Discount code: {view.discountCode}</p> : null}
      {error ? <p role="alert" style={{ color: "#b00020" }}>{error}</p> : null}
      <form method="post" action="/api/simulator/checkout">
        <input type="hidden" name="id" value={view.id} />
        {view.needsEmail ? (
          <p>
            <label>
              Email <input type="email" name="email" required autoComplete="email" />
            </label>
          </p>
        ) : (
          <p>Account: {view.email}</p>
        )}
        <button type="submit">Complete purchase</button> <a href={view.cancelUrl}>Cancel</a>
      </form>
    </main>
  );
}
