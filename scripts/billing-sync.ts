/**
 * npm run billing:sync — reconciles local subscriptions and bonus purchases with Lemon Squeezy
 * (lib/billing/sync-billing.ts): re-reads every subscription and paid order of the store and applies
 * them idempotently (older data never overwrites newer state; a bonus order grants once). Safe to run
 * any number of times; prints a JSON report. Exit code 1 when something failed.
 * With the local checkout simulator there is nothing to re-read. Stop the dev server first when using
 * the embedded database (only one process may open its directory).
 */
import { syncBilling } from "@/lib/billing/sync-billing";
import { EnvError } from "@/lib/config/env";
import { closeDb } from "@/lib/db/client";

async function main(): Promise<number> {
  try {
    const report = await syncBilling();
    console.log(JSON.stringify(report, null, 2));
    return report.subscriptions.failed + report.orders.failed > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof EnvError) console.error(error.message);
    else console.error("billing sync failed:", (error as Error).message);
    return 1;
  } finally {
    await closeDb().catch(() => undefined);
  }
}

main().then((code) => process.exit(code));
