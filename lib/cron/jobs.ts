import { runDueAutoRecharges } from "@/lib/billing/auto-recharge/run-auto-recharges";
import { expireTrials } from "@/lib/billing/subscriptions/expire-trials";
import { syncBilling } from "@/lib/billing/sync-billing";
import { env } from "@/lib/config/env";
import { flags } from "@/lib/config/flags";
import { expireBonusPurchases, refundStaleReservations } from "@/lib/credits";
import { sweepAbandonedUploads } from "@/lib/storage";
import { sweepRevokedSessions } from "@/lib/users/sweep-revoked-sessions";
import { deliverDue } from "@/lib/outbound/deliver-outbound";
import type { JobOutcome } from "./run-job";

/** A scheduled maintenance job (SPEC §4.6): its schedule (as in vercel.json), when it applies and its work. */
export interface CronJob {
  /** Lock and run-log name, and the path segment of its endpoint. */
  job: CronJobName;
  /** Cron expression, as in vercel.json. */
  schedule: string;
  /** OpenAPI summary. */
  summary: string;
  /** Whether the job applies under the current configuration (e.g. credit_based only). */
  active: () => boolean;
  /** The message of a run while inactive. */
  inactiveMessage: string;
  run: () => Promise<JobOutcome>;
  /** Daily housekeeping that runs with every authorised call, whether or not the job applies (failures are logged). */
  housekeeping?: () => Promise<unknown>;
}

export const CRON_JOB_NAMES = ["check-trials", "expire-bonus-credits", "deliver-webhooks"] as const;
export type CronJobName = (typeof CRON_JOB_NAMES)[number];

const syncInCron = () =>
  env().BILLING_SYNC_IN_CRON &&
  (Boolean(env().LEMONSQUEEZY_API_KEY) || (env().PAYMENT_PROVIDER === "stripe" && Boolean(env().STRIPE_SECRET_KEY)));

export const CRON_JOBS: Record<CronJobName, CronJob> = {
  "check-trials": {
    job: "check-trials",
    schedule: "0 2 * * *",
    summary: "Expire trials past their end date (classic_saas); optionally reconcile with the payment provider",
    active: () => flags().pricingModel === "classic_saas" || syncInCron(),
    inactiveMessage: "Skipped: trial expiry applies only in classic_saas mode",
    // Every day in either pricing mode: what a stopped process left behind (unfinished uploads,
    // charges whose answer it never sent), and signed-out sessions whose tokens have all expired.
    housekeeping: () => Promise.all([sweepAbandonedUploads(), refundStaleReservations(), sweepRevokedSessions()]),
    run: async () => {
      const trials = flags().pricingModel === "classic_saas" ? await expireTrials() : null;
      const sync = syncInCron() ? await syncBilling() : null;
      const parts = [
        trials ? `Expired ${trials.expiredCount} trial${trials.expiredCount === 1 ? "" : "s"}` : "Trial expiry skipped (credit_based mode)",
        ...(trials?.convertedCount ? [`${trials.convertedCount} converted by the provider`] : []),
        ...(sync ? [sync.message] : []),
      ];
      return { message: parts.join("; "), count: trials?.expiredCount ?? 0, details: sync ? { sync } : undefined };
    },
  },
  "expire-bonus-credits": {
    job: "expire-bonus-credits",
    schedule: "0 3 * * *",
    summary: "Expire bonus credit purchases past their expiry date",
    active: () => flags().creditBased,
    inactiveMessage: "Skipped: bonus credit expiry applies only in credit_based mode",
    run: async () => {
      const { expiredCount } = await expireBonusPurchases();
      return { message: `Expired ${expiredCount} bonus credit purchase${expiredCount === 1 ? "" : "s"}`, count: expiredCount };
    },
  },
  "deliver-webhooks": {
    job: "deliver-webhooks",
    schedule: "*/5 * * * *",
    summary: "Send due outbound webhooks and alert emails (retries with backoff for 3 days); pay claimed auto-recharges (Stripe)",
    active: () => true,
    inactiveMessage: "",
    run: async () => {
      // Top-ups first: their events are then sent in the same run (serverless deployments have no server loop).
      const recharges = env().PAYMENT_PROVIDER === "stripe" ? await runDueAutoRecharges() : null;
      const run = await deliverDue();
      return {
        message: `Delivered ${run.delivered}, ${run.retrying} to retry, ${run.failed} failed for good${recharges ? `; auto-recharges: ${recharges.paid} paid, ${recharges.failed} failed, ${recharges.waiting} waiting` : ""}`,
        count: run.delivered,
        details: { ...run, ...(recharges ? { autoRecharges: recharges } : {}) },
      };
    },
  },
};

export function isCronJobName(name: string): name is CronJobName {
  return (CRON_JOB_NAMES as readonly string[]).includes(name);
}
