import { randomBytes } from "node:crypto";
import { findVariant } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Subscription } from "@/lib/generated/prisma/client";
import type {
  CheckoutRequest,
  PaymentProvider,
  ProviderInvoice,
  ProviderOrder,
  ProviderSubscription,
  SubscriptionAttributes,
} from "./provider-types";
import { signSimulatorToken, verifySimulatorToken } from "./simulator-token";
import { snapshotFromRecord } from "./record-snapshot";

/**
 * The local checkout simulator as the payment provider when Lemon Squeezy is not configured: checkout
 * URLs point at /simulator/checkout/<signed id> (lib/simulator completes them by delivering signed
 * webhooks), the local database plays the provider's subscription store, and cancel, resume and plan
 * changes answer the new subscription as Lemon Squeezy's API does.
 */
export const CHECKOUT_TTL_SECONDS = 24 * 60 * 60;
export const PORTAL_TTL_SECONDS = 24 * 60 * 60;

export interface SimulatedCheckout {
  cid: string;
  variantId: string;
  userId?: string | null;
  email?: string | null;
  redirectUrl: string;
  cancelUrl?: string | null;
  discountCode?: string | null;
}

export interface SimulatedPortalAccess {
  sub: string;
  uid: string;
}

export function addPeriod(from: Date, period: "monthly" | "yearly"): Date {
  const d = new Date(from);
  if (period === "yearly") d.setUTCFullYear(d.getUTCFullYear() + 1);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}

export class CheckoutSimulator implements PaymentProvider {
  readonly name = "simulator" as const;

  constructor(private readonly baseUrl: string) {}

  async createCheckout(req: CheckoutRequest): Promise<{ url: string }> {
    if (!findVariant(req.variantId)) throw new AppError("validation_failed", `Unknown variant ${req.variantId}`);
    const checkout: SimulatedCheckout = {
      cid: randomBytes(9).toString("base64url"),
      variantId: req.variantId,
      userId: req.userId ?? null,
      email: req.email ?? null,
      redirectUrl: req.redirectUrl,
      cancelUrl: req.cancelUrl ?? null,
      discountCode: req.discountCode ?? null,
    };
    const token = signSimulatorToken(checkout as unknown as Record<string, unknown>, CHECKOUT_TTL_SECONDS);
    return { url: `${this.baseUrl}/simulator/checkout/${token}` };
  }

  private async row(id: string): Promise<{ row: Subscription; email: string | null }> {
    const prisma = await db();
    const row = await prisma.subscription.findUnique({
      where: { providerSubscriptionId: id },
      include: { user: { select: { email: true } } },
    });
    if (!row) throw new AppError("not_found", "Subscription not found at the payment provider");
    return { row, email: row.user.email };
  }

  async getSubscription(id: string): Promise<ProviderSubscription | null> {
    const prisma = await db();
    const row = await prisma.subscription.findUnique({
      where: { providerSubscriptionId: id },
      include: { user: { select: { email: true } } },
    });
    return row ? snapshotFromRecord(row, row.user.email, { updated_at: (row.providerUpdatedAt ?? row.updatedAt).toISOString() }) : null;
  }

  /**
   * The subscription after a change, as the provider's API answers it; the caller applies the answer
   * (lib/billing/subscriptions/apply-provider-answer.ts) exactly as it applies Lemon Squeezy's.
   */
  private async mutate(
    id: string,
    patch: (row: Subscription, now: Date) => Partial<SubscriptionAttributes>,
  ): Promise<ProviderSubscription> {
    const { row, email } = await this.row(id);
    const now = new Date();
    return snapshotFromRecord(row, email, patch(row, now), now);
  }

  changeSubscriptionVariant(id: string, variantId: string): Promise<ProviderSubscription> {
    const match = findVariant(variantId);
    if (!match || match.kind !== "plan") throw new AppError("validation_failed", `Unknown plan variant ${variantId}`);
    return this.mutate(id, () => ({ variant_id: variantId, variant_name: `${match.tier.name} ${match.billingPeriod}` }));
  }

  cancelSubscription(id: string): Promise<ProviderSubscription> {
    return this.mutate(id, (row, now) => {
      if (row.status === "expired") throw new AppError("not_found", "Subscription has already expired");
      const endsAt =
        row.endsAt ?? row.currentPeriodEnd ?? row.trialEndsAt ?? addPeriod(now, row.billingPeriod === "yearly" ? "yearly" : "monthly");
      return { status: "cancelled", cancelled: true, ends_at: endsAt.toISOString() };
    });
  }

  resumeSubscription(id: string): Promise<ProviderSubscription> {
    return this.mutate(id, (row, now) => {
      if (row.status !== "cancelled") throw new AppError("bad_request", "Only a cancelled subscription can be resumed");
      if (row.endsAt && row.endsAt <= now) throw new AppError("bad_request", "The subscription has already ended");
      return { status: row.trialEndsAt && row.trialEndsAt > now ? "on_trial" : "active", cancelled: false, ends_at: null };
    });
  }

  async customerPortalUrl(id: string): Promise<string> {
    const { row } = await this.row(id);
    const token = signSimulatorToken({ sub: row.providerSubscriptionId, uid: row.userId }, PORTAL_TTL_SECONDS);
    return `${this.baseUrl}/simulator/portal?token=${encodeURIComponent(token)}`;
  }

  // The local database is the simulator's store: there is nothing remote to reconcile.
  async *listSubscriptions(): AsyncIterable<ProviderSubscription> {}
  async *listOrders(): AsyncIterable<ProviderOrder> {}

  async *listSubscriptionInvoices(): AsyncIterable<ProviderInvoice> {}
}

/** Reads a simulator checkout id (null when forged or expired) with what it sells. */
export function readSimulatedCheckout(id: string) {
  const checkout = verifySimulatorToken<SimulatedCheckout & Record<string, unknown>>(id);
  if (!checkout) return null;
  const match = findVariant(checkout.variantId);
  if (!match) return null;
  return { checkout, match };
}
