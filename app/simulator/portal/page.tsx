import { loadSimulatedPortal } from "@/lib/simulator/simulator-views";
import { simulatorEnabled } from "@/lib/billing/payment-provider/payment-provider";

export const dynamic = "force-dynamic";

const box = { fontFamily: "system-ui, sans-serif", maxWidth: 560, margin: "4rem auto", padding: "0 1rem" } as const;

function Action({ token, action, label }: { token: string; action: string; label: string }) {
  return (
    <form method="post" action="/api/simulator/portal" style={{ display: "inline-block", marginRight: 8 }}>
      <input type="hidden" name="token" value={token} />
      <input type="hidden" name="action" value={action} />
      <button type="submit">{label}</button>
    </form>
  );
}

/** The local checkout simulator's billing portal (stands in for Lemon Squeezy's customer portal). */
export default async function SimulatedPortalPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string; message?: string; error?: string }>;
}) {
  const { token, message, error } = await searchParams;
  const view = simulatorEnabled() ? await loadSimulatedPortal(token) : null;
  if (!view) {
    return (
      <main style={box}>
        <h1>Portal session not found</h1>
        <p>
          This billing portal link does not exist or has expired (links are valid for 24 hours). Open the portal again from your account.
        </p>
      </main>
    );
  }
  const s = view.subscription;
  return (
    <main style={box}>
      <p style={{ background: "#fff3cd", padding: "0.5rem 0.75rem", borderRadius: 4 }}>
        Local billing portal (checkout simulator): cancel, resume and plan changes are answered at once, as Lemon Squeezy&apos;s API
        answers; the payment actions deliver signed payment webhooks to this app.
      </p>
      <h1>Billing</h1>
      {message ? <p role="status">{message}</p> : null}
      {error ? (
        <p role="alert" style={{ color: "#b00020" }}>
          {error}
        </p>
      ) : null}
      <dl>
        <dt>Account</dt>
        <dd>{view.email}</dd>
        <dt>Plan</dt>
        <dd>
          {s.tier} ({s.billingPeriod})
        </dd>
        <dt>Status</dt>
        <dd>
          {s.status}
          {s.paymentFailed ? " (payment failed: action needed)" : ""}
        </dd>
        {s.trialEndsAt ? (
          <>
            <dt>Trial ends</dt>
            <dd>{s.trialEndsAt}</dd>
          </>
        ) : null}
        {s.endsAt ? (
          <>
            <dt>Ends</dt>
            <dd>{s.endsAt}</dd>
          </>
        ) : s.currentPeriodEnd ? (
          <>
            <dt>Renews</dt>
            <dd>{s.currentPeriodEnd}</dd>
          </>
        ) : null}
      </dl>
      {s.status === "expired" ? (
        <p>This subscription has ended.</p>
      ) : (
        <>
          <p>
            {s.status === "cancelled" ? (
              <Action token={view.token} action="resume" label="Resume subscription" />
            ) : (
              <Action token={view.token} action="cancel" label="Cancel subscription" />
            )}
          </p>
          <form method="post" action="/api/simulator/portal">
            <input type="hidden" name="token" value={view.token} />
            <input type="hidden" name="action" value="change_plan" />
            <label>
              Change plan{" "}
              <select name="variantId" defaultValue={s.variantId}>
                {view.plans.map((p) => (
                  <option key={p.variantId} value={p.variantId}>
                    {p.label}
                    {p.current ? " (current)" : ""}
                  </option>
                ))}
              </select>
            </label>{" "}
            <button type="submit">Change</button>
          </form>
          <h2>Simulate provider events</h2>
          <p>
            <Action token={view.token} action="renew" label="Renewal payment" />
            <Action token={view.token} action="fail_payment" label="Failed payment" />
            <Action token={view.token} action="recover_payment" label="Recovered payment" />
          </p>
        </>
      )}
    </main>
  );
}
