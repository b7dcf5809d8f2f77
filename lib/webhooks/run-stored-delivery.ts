import type { WebhookDelivery } from "@/lib/generated/prisma/client";
import type { Logger } from "@/lib/log";
import { finishDelivery } from "./deliveries";
import { runEmailDelivery } from "./email/process-email-webhook";
import { runIdentityDelivery } from "./identity/process-identity-webhook";
import { toPaymentEvent } from "./payment/payload";
import { runPaymentDelivery } from "./payment/run-payment-delivery";

/**
 * Runs a stored delivery again through the same code path its webhook route uses (an operator's
 * replay). The caller has claimed it (status "received"). Every effect is idempotent: a processed
 * order grants nothing twice, an older subscription event never overwrites newer state.
 */
export async function runStoredDelivery(delivery: WebhookDelivery, log: Logger): Promise<{ status: string; result: string }> {
  const outcome = async (run: () => Promise<string>) => {
    try {
      return { status: "processed", result: await run() };
    } catch (error) {
      return { status: "failed", result: (error as Error).message };
    }
  };
  switch (delivery.source) {
    case "payment": {
      let event;
      try {
        event = toPaymentEvent(delivery.payload);
      } catch (error) {
        await finishDelivery(delivery.id, "failed", (error as Error).message);
        return { status: "failed", result: (error as Error).message };
      }
      const result = await runPaymentDelivery(delivery.id, event, log);
      return { status: result.status, result: result.result ?? result.status };
    }
    case "identity":
      return outcome(() => runIdentityDelivery(delivery.id, delivery.payload, log));
    case "email":
      return outcome(() => runEmailDelivery(delivery.id, delivery.payload, log));
    default:
      await finishDelivery(delivery.id, "ignored", `unknown source ${delivery.source}`);
      return { status: "ignored", result: `unknown source ${delivery.source}` };
  }
}
