import { cronRoute } from "@/lib/http/cron-route";
import { expireBonusPurchases } from "@/lib/credits";
import { flags } from "@/lib/config/flags";
import { methods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods(
  cronRoute({
    job: "expire-bonus-credits",
    schedule: "0 3 * * *",
    summary: "Expire bonus credit purchases past their expiry date",
    active: () => flags().creditBased,
    inactiveMessage: "Skipped: bonus credit expiry applies only in credit_based mode",
    run: async () => {
      const { expiredCount } = await expireBonusPurchases();
      return { message: `Expired ${expiredCount} bonus credit purchase${expiredCount === 1 ? "" : "s"}`, count: expiredCount };
    },
  }),
);
