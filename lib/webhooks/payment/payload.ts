import { z } from "zod";
import { AppError } from "@/lib/errors";
import type { InvoiceEventInput } from "@/lib/billing/payment-provider/payment-event-outcome";
import type { InvoiceAttributes } from "@/lib/billing/payment-provider/provider-types";
import { isInvoiceResource, isSnapshotEvent } from "@/lib/billing/subscriptions/subscription-state";

/** A payment event in Lemon Squeezy's webhook shape (meta + one JSON:API resource). */
export interface PaymentEvent {
  name: string;
  custom: Record<string, unknown>;
  data: { id: string; type: string; attributes: Record<string, unknown> };
}

const id = z.union([z.string().min(1), z.number()]).transform(String);

const envelope = z.object({
  meta: z.looseObject({
    event_name: z.string().min(1),
    custom_data: z.record(z.string(), z.unknown()).nullish(),
  }),
  data: z.looseObject({
    id,
    type: z.string().min(1),
    attributes: z.record(z.string(), z.unknown()),
  }),
});

const timestamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "must be a timestamp");
const snapshotAttributes = z.looseObject({ status: z.string().min(1), variant_id: id, updated_at: timestamp });
const invoiceAttributes = z.looseObject({ subscription_id: id });
const orderAttributes = z.looseObject({ first_order_item: z.looseObject({ variant_id: id }) });

function describe(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0];
  return `Invalid payload: ${prefix}${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`;
}

/**
 * Parses a verified raw body once: the event, and the JSON itself (stored with the delivery). A
 * malformed payload is a 400 naming the field.
 */
export function parsePaymentEvent(rawBody: string): { event: PaymentEvent; payload: unknown } {
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody);
  } catch {
    throw new AppError("bad_request", "Invalid payload: not valid JSON");
  }
  return { event: toPaymentEvent(payload), payload };
}

export function toPaymentEvent(json: unknown): PaymentEvent {
  const parsed = envelope.safeParse(json);
  if (!parsed.success) throw new AppError("bad_request", describe(parsed.error, ""));
  const name = parsed.data.meta.event_name;
  const attributes = parsed.data.data.attributes;
  const check = isSnapshotEvent(name)
    ? snapshotAttributes.safeParse(attributes)
    : isInvoiceResource(name)
      ? invoiceAttributes.safeParse(attributes)
      : name === "order_created" || name === "order_refunded"
        ? orderAttributes.safeParse(attributes)
        : null;
  if (check && !check.success) throw new AppError("bad_request", describe(check.error, "data.attributes."));
  return { name, custom: parsed.data.meta.custom_data ?? {}, data: { id: parsed.data.data.id, type: parsed.data.data.type, attributes } };
}

/** The provider object the event is about: the subscription for subscription_* events, else the order. */
export function eventObjectId(event: PaymentEvent): string {
  if (isInvoiceResource(event.name)) return String(event.data.attributes.subscription_id);
  return event.data.id;
}

/** The event's time: the resource's updated_at (else created_at, else now). */
export function eventTime(event: PaymentEvent): Date {
  for (const key of ["updated_at", "created_at"]) {
    const value = event.data.attributes[key];
    if (typeof value === "string" && !Number.isNaN(Date.parse(value))) return new Date(value);
  }
  return new Date();
}

export function eventEmail(event: PaymentEvent): string | null {
  const email = event.data.attributes.user_email;
  return typeof email === "string" && email.includes("@") ? email.trim().toLowerCase() : null;
}

/** An invoice event (subscription_payment_*) as lib/billing takes it. */
export function invoiceEvent(ctx: { event: PaymentEvent; userId: string; occurredAt: Date }): InvoiceEventInput {
  return {
    userId: ctx.userId,
    occurredAt: ctx.occurredAt,
    invoice: { id: ctx.event.data.id, attributes: ctx.event.data.attributes as InvoiceAttributes },
  };
}
