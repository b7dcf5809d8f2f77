import { isAppError } from "@/lib/errors";
import { boundedLabel, metrics } from "@/lib/metrics";
import { withSpan } from "@/lib/tracing";

/** What the three webhook processors answer, as far as the delivery metric needs it. */
interface DeliveryResult {
  type?: string;
  processed?: string;
  duplicate?: boolean;
  status?: string;
  result?: string;
}

/**
 * Counts a webhook delivery in webhook_deliveries_total by source, event type (known types only) and
 * outcome: processed, duplicate, ignored, pending, failed, or bad_signature when verification refused it.
 */
export async function observeDelivery<T extends DeliveryResult>(
  source: "payment" | "identity" | "email",
  knownTypes: readonly string[],
  run: () => Promise<T>,
): Promise<T> {
  const counter = metrics().webhookDeliveries;
  return withSpan("webhook.process", { "webhook.source": source }, async (span) => {
    try {
      const result = await run();
      const type = boundedLabel(result.type ?? result.processed, knownTypes);
      const outcome = result.duplicate
        ? "duplicate"
        : (result.status ?? (result.result === "event type ignored" ? "ignored" : "processed"));
      counter.inc({ source, type, outcome });
      span?.setAttributes({ "webhook.type": type, "webhook.outcome": outcome });
      return result;
    } catch (error) {
      const outcome =
        isAppError(error) && (error.code === "invalid_signature" || error.code === "signature_rejected" || error.code === "unauthorized")
          ? "bad_signature"
          : "failed";
      counter.inc({ source, type: "unknown", outcome });
      span?.setAttribute("webhook.outcome", outcome);
      throw error;
    }
  });
}
