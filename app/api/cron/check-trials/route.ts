import { expireTrials } from "@/lib/billing/expire-trials";
import { syncBilling } from "@/lib/billing/sync-billing";
import { env } from "@/lib/config/env";
import { flags } from "@/lib/config/flags";
import { cronRoute } from "@/lib/http/cron-route";
import { methods } from "@/lib/http/route";
import { sweepAbandonedUploads } from "@/lib/storage";

export const dynamic = "force-dynamic";

const syncInCron = () => env().BILLING_SYNC_IN_CRON && Boolean(env().LEMONSQUEEZY_API_KEY);

export const { GET, POST, PUT, PATCH, DELETE } = methods(
  cronRoute({
    job: "check-trials",
    schedule: "0 2 * * *",
    summary: "Expire trials past their end date (classic_saas); optionally reconcile with the payment provider",
    active: () => flags().pricingModel === "classic_saas" || syncInCron(),
    inactiveMessage: "Skipped: trial expiry applies only in classic_saas mode",
    // Every day in either pricing mode: uploads killed processes left unfinished.
    housekeeping: () => sweepAbandonedUploads(),
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
  }),
);
