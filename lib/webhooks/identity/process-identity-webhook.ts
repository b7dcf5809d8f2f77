import { env } from "@/lib/config/env";
import { observeDelivery } from "@/lib/webhooks/observe-delivery";
import { AppError } from "@/lib/errors";
import type { Logger } from "@/lib/log";
import { claimDelivery, finishDelivery } from "../deliveries";
import { verifySvixDelivery } from "../svix";
import { handleUserCreated } from "./handle-user-created";
import { handleUserDeleted } from "./handle-user-deleted";
import { handleUserUpdated } from "./handle-user-updated";
import { identityEvent } from "./payload";

export interface IdentityWebhookResult {
  received: true;
  type: string;
  duplicate: boolean;
  result?: string;
}

/** processIdentityWebhook, counted in webhook_deliveries_total (lib/webhooks/observe-delivery.ts). */
export function processIdentityWebhook(rawBody: string, headers: Headers, log: Logger) {
  return observeDelivery("identity", ["user.created", "user.updated", "user.deleted"], () =>
    processIdentityWebhookUnobserved(rawBody, headers, log),
  );
}

/**
 * Verifies, records and applies one identity-provider delivery. Unknown event types are recorded and
 * acknowledged (ignored). A failed handler marks the delivery failed and answers 500 so the provider
 * retries; the retry (same svix-id) is processed again.
 */
async function processIdentityWebhookUnobserved(rawBody: string, headers: Headers, log: Logger): Promise<IdentityWebhookResult> {
  const { id, payload } = verifySvixDelivery(rawBody, headers, env().IDENTITY_WEBHOOK_SECRET);
  const type = typeof (payload as { type?: unknown })?.type === "string" ? (payload as { type: string }).type : "unknown";
  const parsed = identityEvent.safeParse(payload);
  const known = ["user.created", "user.updated", "user.deleted"].includes(type);
  if (known && !parsed.success) {
    throw new AppError(
      "bad_request",
      `Invalid ${type} payload: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`,
    );
  }
  const { claimed, delivery } = await claimDelivery({
    source: "identity",
    deliveryId: id,
    eventType: type,
    payload,
    userRef: parsed.success ? parsed.data.data.id : null,
  });
  if (!claimed) return { received: true, type, duplicate: true };
  const result = await runIdentityDelivery(delivery.id, payload, log);
  return { received: true, type, duplicate: false, result };
}

/**
 * Applies a claimed identity delivery (a new one, or a stored one an operator replays) and records
 * its outcome. Unknown event types are recorded as ignored. A handler failure marks it failed and is
 * thrown (the webhook route answers 500 so the provider retries).
 */
export async function runIdentityDelivery(deliveryRowId: string, payload: unknown, log: Logger): Promise<string> {
  const parsed = identityEvent.safeParse(payload);
  if (!parsed.success) {
    await finishDelivery(deliveryRowId, "ignored");
    return "event type ignored";
  }
  try {
    const event = parsed.data;
    const result =
      event.type === "user.created"
        ? await handleUserCreated(event.data)
        : event.type === "user.updated"
          ? await handleUserUpdated(event.data)
          : await handleUserDeleted(event.data);
    await finishDelivery(deliveryRowId, "processed");
    log.info("identity event processed", { type: event.type, deliveryRowId, result });
    return result;
  } catch (error) {
    await finishDelivery(deliveryRowId, "failed", (error as Error).message);
    throw error;
  }
}
