/**
 * The events an account's webhook endpoints may subscribe to (docs/API-NOTES.md "Spend alerts and
 * webhooks"). An endpoint subscribes to names, or to a family with `.*` (subscription.*).
 */
export const OUTBOUND_EVENT_TYPES = [
  "credits.low",
  "credits.depleted",
  "budget.threshold",
  "spend.rate",
  "credits.projected_overrun",
  "subscription.created",
  "subscription.updated",
  "subscription.cancelled",
  "subscription.expired",
  "key.revoked",
  "credits.auto_recharge_succeeded",
  "credits.auto_recharge_failed",
  "credits.purchased",
  "payment.failed",
  "payment.refunded",
  "webhook.test",
] as const;
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];

/** What an endpoint may subscribe to: an event type, or a family of them (`subscription.*`, `payment.*`). */
export const SUBSCRIBABLE = [...OUTBOUND_EVENT_TYPES.filter((t) => t !== "webhook.test"), "subscription.*", "payment.*"] as const;

/** Whether an endpoint subscribed to `events` wants an event of `type` (a test event goes to the endpoint it was sent to only). */
export function wants(events: string[], type: string): boolean {
  return events.some((e) => e === type || (e.endsWith(".*") && type.startsWith(e.slice(0, -1))));
}
