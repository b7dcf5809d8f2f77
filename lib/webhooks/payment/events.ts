import type { HandledPaymentEvent } from "@/lib/billing/subscriptions/subscription-state";
import { handleOrderRefunded } from "./handle-order-refunded";
import { handleSubscriptionPaymentRefunded } from "./handle-subscription-payment-refunded";
import { handleOrderCreated } from "./handle-order-created";
import { handlePaymentDispute } from "./handle-payment-dispute";
import { handleSubscriptionCancelled } from "./handle-subscription-cancelled";
import { handleSubscriptionCreated } from "./handle-subscription-created";
import { handleSubscriptionExpired } from "./handle-subscription-expired";
import { handleSubscriptionPaused } from "./handle-subscription-paused";
import { handleSubscriptionPaymentFailed } from "./handle-subscription-payment-failed";
import { handleSubscriptionPaymentRecovered } from "./handle-subscription-payment-recovered";
import { handleSubscriptionPaymentSuccess } from "./handle-subscription-payment-success";
import { handleSubscriptionResumed } from "./handle-subscription-resumed";
import { handleSubscriptionUnpaused } from "./handle-subscription-unpaused";
import { handleSubscriptionUpdated } from "./handle-subscription-updated";
import type { PaymentEventHandler } from "./types";

/** The 11 payment event types of SPEC §6, the two refunds and the disputes, one handler file each. */
export const PAYMENT_EVENT_HANDLERS: Record<HandledPaymentEvent, PaymentEventHandler> = {
  subscription_created: handleSubscriptionCreated,
  subscription_updated: handleSubscriptionUpdated,
  subscription_cancelled: handleSubscriptionCancelled,
  subscription_resumed: handleSubscriptionResumed,
  subscription_expired: handleSubscriptionExpired,
  subscription_paused: handleSubscriptionPaused,
  subscription_unpaused: handleSubscriptionUnpaused,
  subscription_payment_failed: handleSubscriptionPaymentFailed,
  subscription_payment_success: handleSubscriptionPaymentSuccess,
  subscription_payment_recovered: handleSubscriptionPaymentRecovered,
  order_created: handleOrderCreated,
  order_refunded: handleOrderRefunded,
  subscription_payment_refunded: handleSubscriptionPaymentRefunded,
  payment_dispute_opened: handlePaymentDispute,
  payment_dispute_closed: handlePaymentDispute,
};
