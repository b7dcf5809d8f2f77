import { findVariant } from "@/lib/config/pricing";
import { db } from "@/lib/db/client";
import type { AutoRecharge } from "@/lib/generated/prisma/client";
import { log as rootLog, type Logger } from "@/lib/log";
import { accountRecipients } from "@/lib/outbound/account-recipients";
import { deliverSoon } from "@/lib/outbound/deliver-outbound";
import { emitEvent } from "@/lib/outbound/emit-event";
import { grantBonusOrder } from "../checkout/grant-bonus-order";
import { paymentProvider } from "../payment-provider/payment-provider";
import { StripePaymentProvider } from "../payment-provider/stripe-client";
import { stripeCustomerOf } from "../payment-provider/stripe-customer";

/** A server paying a top-up holds it this long; a crash leaves it to another run after that. */
const LEASE_SECONDS = 120;
/** A top-up Stripe could not be reached for is retried this many times (same idempotency key), then failed. */
const MAX_ATTEMPTS = 10;

export interface AutoRechargeRun {
  paid: number;
  failed: number;
  /** Left for a later run: Stripe unreachable, or the payment still processing. */
  waiting: number;
}

/**
 * Pays the top-ups claimed (prisma/functions/claim_auto_recharge_for.sql: by a charge, or a save under the threshold), off the request path:
 * each server's loop and the deliver-webhooks cron call it. A top-up is leased (FOR UPDATE SKIP
 * LOCKED), so instances never pay one twice at once, and Stripe's idempotency key (the top-up's id)
 * makes a retry after a lost answer the same payment. Top-ups of different accounts are paid side by
 * side: one slow card never delays another account's.
 */
export async function runDueAutoRecharges(options: { limit?: number; log?: Logger } = {}): Promise<AutoRechargeRun> {
  const log = options.log ?? rootLog;
  const prisma = await db();
  const due = await prisma.$queryRaw<{ id: string }[]>`
    UPDATE auto_recharges SET status = 'processing', attempts = attempts + 1,
                              locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), updated_at = now()
    WHERE id IN (SELECT id FROM auto_recharges
                 WHERE status = 'claimed' OR (status = 'processing' AND locked_until < now())
                 ORDER BY created_at LIMIT ${options.limit ?? 20} FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  const run: AutoRechargeRun = { paid: 0, failed: 0, waiting: 0 };
  if (due.length === 0) return run;
  const rows = await prisma.autoRecharge.findMany({ where: { id: { in: due.map((d) => d.id) } } });
  const outcomes = await Promise.all(
    rows.map((row) => payAutoRecharge(row, log.child({ autoRechargeId: row.id, accountId: row.accountId }))),
  );
  for (const outcome of outcomes) run[outcome]++;
  if (run.paid + run.failed > 0) deliverSoon();
  return run;
}

async function payAutoRecharge(row: AutoRecharge, log: Logger): Promise<keyof AutoRechargeRun> {
  try {
    const provider = paymentProvider();
    if (!(provider instanceof StripePaymentProvider)) return fail(row, "provider", "The payment provider is not Stripe any more", log);
    const match = findVariant(row.variantId);
    if (match?.kind !== "bonus") return fail(row, "pack_gone", `The pack ${row.variantId} is no longer in the pricing catalog`, log);
    const customer = await stripeCustomerOf(row.accountId);
    if (!customer) return fail(row, "no_saved_card", "No saved card: buy a credit pack once to save one", log);
    const charge = await provider.chargeSavedCard({
      customerId: customer,
      amount: row.amount,
      currency: row.currency,
      description: `Auto-recharge: ${row.credits.toLocaleString("en-US")} credits`,
      metadata: { user_id: row.accountId, kind: "bonus", price_id: row.variantId, auto_recharge_id: row.id },
      idempotencyKey: `auto-recharge:${row.id}`,
    });
    if (charge.status === "failed") return fail(row, charge.code, charge.message, log, charge.paymentIntentId);
    const prisma = await db();
    if (charge.status === "processing") {
      await prisma.autoRecharge.update({
        where: { id: row.id },
        data: { providerPaymentId: charge.paymentIntentId, updatedAt: new Date() },
      });
      return "waiting";
    }
    // Granted once per payment, whichever comes first: this answer or the payment_intent.succeeded webhook.
    const receipt = await provider.receiptUrlOfPayment(charge.paymentIntentId).catch(() => null);
    await grantBonusOrder({
      userId: row.accountId,
      order: {
        id: charge.paymentIntentId,
        attributes: {
          status: "paid",
          total: row.amount,
          currency: row.currency,
          customer_id: customer,
          first_order_item: { variant_id: row.variantId },
          created_at: new Date().toISOString(),
          urls: { receipt },
        },
      },
    });
    await prisma.$transaction(async (tx) => {
      await tx.autoRecharge.update({
        where: { id: row.id },
        data: {
          status: "succeeded",
          providerPaymentId: charge.paymentIntentId,
          inFlight: null,
          finishedAt: new Date(),
          updatedAt: new Date(),
          error: null,
        },
      });
      await emitEvent(tx, {
        accountId: row.accountId,
        type: "credits.auto_recharge_succeeded",
        data: {
          autoRechargeId: row.id,
          credits: row.credits,
          amount: row.amount,
          currency: row.currency,
          paymentId: charge.paymentIntentId,
        },
      });
    });
    log.info("auto-recharge paid", { credits: row.credits, amount: row.amount });
    return "paid";
  } catch (error) {
    // Stripe or the database unreachable: the lease runs out and a later run tries again, with the same key.
    log.warn("auto-recharge not paid yet; retried after its lease", { attempts: row.attempts, error: (error as Error).message });
    if (row.attempts >= MAX_ATTEMPTS)
      return fail(row, "unreachable", "The payment provider could not be reached", log).catch(() => "waiting" as const);
    return "waiting";
  }
}

/** A top-up that failed: recorded, auto-recharge paused, and the account told (webhook event and email to its owners). */
async function fail(row: AutoRecharge, code: string, message: string, log: Logger, paymentId: string | null = null): Promise<"failed"> {
  const prisma = await db();
  const reason = `${message} (${code})`;
  await prisma.$transaction(async (tx) => {
    await tx.autoRecharge.update({
      where: { id: row.id },
      data: {
        status: "failed",
        error: reason.slice(0, 500),
        providerPaymentId: paymentId,
        inFlight: null,
        finishedAt: new Date(),
        updatedAt: new Date(),
      },
    });
    await tx.autoRechargeSettings.updateMany({
      where: { accountId: row.accountId },
      data: { pausedAt: new Date(), pausedReason: reason.slice(0, 500), updatedAt: new Date() },
    });
    await emitEvent(tx, {
      accountId: row.accountId,
      type: "credits.auto_recharge_failed",
      data: { autoRechargeId: row.id, code, message, credits: row.credits, amount: row.amount, currency: row.currency, paymentId },
      emailTo: await accountRecipients(row.accountId, tx),
    });
  });
  log.warn("auto-recharge failed; paused until the owner acts", { code, message });
  return "failed";
}
