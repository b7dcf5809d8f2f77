import Link from "next/link";
import { describeSimulatedCheckout } from "@/lib/simulator/simulator-views";
import { simulatorEnabled } from "@/lib/billing/payment-provider/payment-provider";
import { formatMoney } from "@/components/api";

export const dynamic = "force-dynamic";

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The local checkout simulator's checkout page (stands in for Lemon Squeezy's hosted checkout). */
export default async function SimulatedCheckoutPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<{ error?: string }>;
}) {
  const { id } = await params;
  const { error } = await searchParams;
  const view = simulatorEnabled() ? await describeSimulatedCheckout(safeDecode(id)) : null;
  if (!view) {
    return (
      <main id="main" className="mx-auto max-w-md px-4 py-16">
        <div className="card">
          <h1>Checkout not found</h1>
          <p className="mt-2 text-sm text-slate-600">This checkout does not exist or has expired (checkouts are valid for 24 hours).</p>
          <Link href="/pricing" className="btn-primary mt-4">
            Back to pricing
          </Link>
        </div>
      </main>
    );
  }
  return (
    <main id="main" className="mx-auto max-w-md px-4 py-16">
      <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
        Local checkout simulator: no payment is taken. Completing the purchase delivers signed payment webhooks to this app.
      </p>
      <div className="card mt-4">
        <h1>{view.title}</h1>
        <p className="mt-1 text-sm text-slate-600">{view.detail}</p>
        <p className="mt-4 text-2xl font-semibold">
          {formatMoney(view.price, view.currency)}
          <span className="text-sm font-normal text-slate-500">
            {view.kind === "plan" ? (view.title.includes("yearly") ? " per year" : " per month") : " once"}
            {view.trialDays > 0 ? ` after a ${view.trialDays}-day free trial` : ""}
          </span>
        </p>
        {view.discountCode ? <p className="mt-1 text-sm">Discount code: {view.discountCode}</p> : null}
        {error ? (
          <p role="alert" className="mt-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            {error}
          </p>
        ) : null}
        <form method="post" action="/api/simulator/checkout" className="mt-4 space-y-4">
          <input type="hidden" name="id" value={view.id} />
          {view.needsEmail ? (
            <div>
              <label htmlFor="checkout-email" className="field-label">
                Email
              </label>
              <input id="checkout-email" className="input" type="email" name="email" required autoComplete="email" />
            </div>
          ) : (
            <p className="text-sm">
              Account: <strong>{view.email}</strong>
            </p>
          )}
          <div className="flex flex-wrap items-center gap-3">
            <button type="submit" className="btn-primary">
              Complete purchase
            </button>
            <a href={view.cancelUrl} className="btn-secondary">
              Cancel
            </a>
          </div>
        </form>
      </div>
    </main>
  );
}
