import { checkModelRules, refundReservation, reserveCredits, settleInBackground, settleReservation, type Reservation } from "@/lib/credits";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { BilledAttempt } from "./meter";
import { costMicros, creditsForCost, wholeMicros, type CallUsage } from "./price-call";
import { pricingSettings } from "./pricing-settings";
import type { Quote } from "./quote-call";

/**
 * An AI call's charge from reservation to settlement (docs/API-NOTES.md "Pricing"): the quote's
 * credits are reserved before the provider is called (402 without an upstream call), and settled at
 * what the usage costs (metered) or at the flat price, in the same step that answers the client. A
 * failure before any content refunds everything.
 */
export interface AiCharge {
  reservation: Reservation;
  quote: Quote;
  operation: string;
  /** Metadata every ledger row of the call carries (provider, and what the caller adds). */
  metadata: Record<string, unknown>;
}

export interface OpenChargeInput {
  userId: string;
  operation: string;
  quote: Quote;
  metadata?: Record<string, unknown>;
  idempotencyKey?: string;
  /** The API key the call is made with (the /v1 API): recorded on the charge, its budget checked. */
  apiKey?: ChargeKey;
  /**
   * The wallet charged when it is not the user's own: an organisation's (the session's active
   * account), with the member making the call, whose caps the charge checks.
   */
  account?: ChargeAccount;
  /** The request's AI slot still to take across instances: taken with the reservation (reserveCredits). */
  slot?: ChargeSlot | null;
}

/** An API key as a charge sees it: its id, whether it has a budget to check, and (an organisation's key) the member who made it. */
export interface ChargeKey {
  id: string;
  budgeted: boolean;
  memberId?: string | null;
  /** Percentages of its budget at which budget.threshold fires (lib/spend-alerts). */
  alertThresholds?: number[];
  /** An organisation's service key: the organisation's model rules apply, no member's. */
  service?: boolean;
}

/** The account a charge is made to: its id, and the member acting for it (null: a person's own wallet). */
export interface ChargeAccount {
  id: string;
  memberId: string | null;
}

/** Reserves the quote's credits; a 402 says what the call may cost and what to lower. */
export async function openCharge(input: OpenChargeInput): Promise<AiCharge> {
  const { quote } = input;
  const metadata = { model: quote.model.id, pricing: quote.flatCredits === null ? "metered" : "flat", ...input.metadata };
  // An organisation's wallet (a member charging it): its model rules first (a person's own wallet has none).
  const memberId = input.account?.memberId ?? input.apiKey?.memberId ?? null;
  if (memberId) await checkModelRules(input.account?.id ?? input.userId, memberId, quote.model.id);
  else if (input.apiKey?.service) await checkModelRules(input.userId, null, quote.model.id);
  try {
    const reservation = await reserveCredits({
      userId: input.account?.id ?? input.userId,
      memberId: input.account?.memberId ?? input.apiKey?.memberId ?? undefined,
      amount: quote.reserve,
      operation: input.operation,
      idempotencyKey: input.idempotencyKey,
      metadata: { ...metadata, reserved: quote.reserve },
      apiKey: input.apiKey,
      slot: input.slot,
    });
    return { reservation, quote, operation: input.operation, metadata };
  } catch (error) {
    if (isAppError(error) && error.code === "insufficient_credits" && quote.flatCredits === null) throw meteredShortfall(quote, error);
    throw error;
  }
}

function meteredShortfall(quote: Quote, error: AppError): AppError {
  const available = Number(error.details?.available ?? 0);
  const w = quote.worst;
  const parts = [
    w.promptTokens ? `about ${w.promptTokens.toLocaleString("en-US")} input tokens` : null,
    w.completionTokens ? `up to ${w.completionTokens.toLocaleString("en-US")} output tokens` : null,
    w.images ? `a ${w.images.quality}-quality ${w.images.size} image` : null,
    w.audioSeconds ? `${(w.audioSeconds / 60).toFixed(1)} minutes of audio` : null,
  ].filter(Boolean);
  let advice = "lower the input";
  if (w.completionTokens) {
    // The output that the balance covers with this input, if any.
    const s = pricingSettings();
    const perToken =
      costMicros(quote.model, { promptTokens: w.promptTokens, completionTokens: 1 }) -
      costMicros(quote.model, { promptTokens: w.promptTokens });
    const spendable = (available * s.creditValueUsd * 1e6) / s.markup - costMicros(quote.model, { promptTokens: w.promptTokens });
    const fits = perToken > 0 ? Math.floor(spendable / perToken) : 0;
    advice =
      fits >= 1
        ? `lower ${quote.maxTokensField ?? "maxTokens"} (at most ${fits.toLocaleString("en-US")} fits your balance) or the input`
        : "lower the input";
  } else if (w.images) advice = "choose a lower quality or a smaller size";
  return new AppError(
    "insufficient_credits",
    `Insufficient credits: this call may cost up to ${quote.reserve} credits (${quote.model.id}: ${parts.join(", ")}) and you have ${available} available; ${advice}`,
    { details: { cost: quote.reserve, available }, param: w.completionTokens ? (quote.maxTokensField ?? "maxTokens") : undefined },
  );
}

export interface UsagePrice {
  credits: number;
  /** Upstream cost, USD millionths (exact; the ledger records it rounded up). */
  micros: number;
}

/** How a call ended, for its price (lib/ai/pricing/meter.ts says what each attempt is billed for). */
export interface CallOutcome {
  /** Every attempt the provider may bill, the last one the call's own. */
  attempts: BilledAttempt[];
  /** The answer was complete: a flat call costs its flat price. */
  complete: boolean;
  /** Some of the answer reached the client (a stream's text): a flat call costs its flat price. */
  delivered?: boolean;
  /** Answered from the answer cache: nothing upstream. */
  cached?: boolean;
  /** Upstream cost besides the attempts (a RAG question's embedding), USD millionths. */
  extraMicros?: number;
}

/**
 * What a call costs in credits. Metered: what its attempts cost upstream, at the markup (an answer
 * from the cache: the minimum per call). Flat: the flat price when the answer was complete or reached
 * the client; a call cut short before that (the client left, the deadline passed) costs what it used
 * metered, at most the flat price, and never less than what the provider bills.
 */
export function priceOutcome(charge: AiCharge, outcome: CallOutcome): UsagePrice {
  const s = pricingSettings();
  const micros = outcome.cached
    ? 0
    : outcome.attempts.reduce((sum, a) => sum + costMicros(a.model, a.usage), 0) + (outcome.extraMicros ?? 0);
  const flat = charge.quote.flatCredits;
  if (flat === null) return { credits: outcome.cached ? s.minCreditsPerCall : creditsForCost(micros, s), micros };
  return { credits: outcome.complete || outcome.delivered ? flat : Math.min(flat, creditsForCost(micros, s)), micros };
}

export interface SettledCharge {
  /** Credits finally charged (0 when the credit system is off). */
  credits: number;
  /** Usable credits after the settlement. */
  remaining: number;
}

/**
 * Settles the charge at its outcome's price, recording the answering model, its usage (tokens,
 * images, audio seconds), provider cost and credits on its ledger rows. `background`: the caller
 * answers without waiting for the statement (its price and the balance after it are known now);
 * otherwise the settlement is written first (a stream's closing event reports it). A settlement
 * that cannot be written leaves the charge reserved (logged): the sweep refunds it once this
 * process is gone, so a database failure here errs toward the user.
 */
export async function settleCharge(
  charge: AiCharge,
  outcome: CallOutcome,
  options: {
    /** The model id the provider named in its answer (recorded when it differs from the priced one). */
    model?: string;
    metadata?: Record<string, unknown>;
    /** A batch settles at the sum of its items' prices, each priced by its own quote. */
    price?: UsagePrice;
    background?: boolean;
  } = {},
): Promise<SettledCharge> {
  const { credits, micros } = options.price ?? priceOutcome(charge, outcome);
  const last = outcome.attempts[outcome.attempts.length - 1];
  const answeredBy = last?.answeredBy;
  // The offline provider bills nobody: its calls are priced as their model (so credits behave as they
  // will with a provider) but cost nothing upstream.
  const upstreamMicros = answeredBy?.provider === "offline" ? 0 : wholeMicros(micros);
  const metadata: Record<string, unknown> = {
    ...charge.metadata,
    ...(answeredBy ? { provider: answeredBy.provider, model: answeredBy.model } : {}),
    ...(options.model && options.model !== (answeredBy?.model ?? charge.quote.model.id) ? { providerModel: options.model } : {}),
    ...(last ? usageFields(last.usage) : {}),
    ...(last && !last.reported && !outcome.cached ? { usageEstimated: true } : {}),
    ...(outcome.attempts.length > 1 ? { attempts: outcome.attempts.length } : {}),
    costMicros: upstreamMicros,
    credits,
    ...(outcome.cached ? { cached: true } : {}),
    ...(!outcome.complete ? { partial: true } : {}),
    ...options.metadata,
  };
  const { reservation } = charge;
  if (!reservation.charged) return { credits: 0, remaining: reservation.remaining };
  const input = { amount: credits, costMicros: upstreamMicros, metadata };
  if (options.background) {
    settleInBackground(reservation, input);
    // The balance after it: what the reservation left, plus the part returned (or minus the rest drawn).
    return { credits, remaining: Math.max(0, reservation.remaining + reservation.amount - credits) };
  }
  try {
    const settled = await settleReservation(reservation, input);
    return { credits: settled.settled ? settled.charged : reservation.amount, remaining: settled.remaining };
  } catch (error) {
    log.error("settlement not written; the charge stays reserved until the sweep", { reservationId: reservation.id, error });
    return { credits: reservation.amount, remaining: reservation.remaining };
  }
}

function usageFields(u: CallUsage): Record<string, unknown> {
  return {
    ...(u.promptTokens !== undefined ? { promptTokens: u.promptTokens } : {}),
    ...(u.cachedPromptTokens ? { cachedPromptTokens: u.cachedPromptTokens } : {}),
    ...(u.completionTokens !== undefined ? { completionTokens: u.completionTokens } : {}),
    ...(u.images ? { images: u.images.count, imageQuality: u.images.quality, imageSize: u.images.size } : {}),
    ...(u.audioSeconds !== undefined ? { audioSeconds: Math.round(u.audioSeconds * 100) / 100 } : {}),
  };
}

/** Refunds the whole charge (the call failed before any content); never throws. */
export async function refundCharge(charge: AiCharge, reason: string): Promise<void> {
  try {
    await refundReservation(charge.reservation, { reason });
  } catch (error) {
    log.error("refund after a failed AI call failed; the cleanup refunds the charge", { reservationId: charge.reservation.id, error });
  }
}
