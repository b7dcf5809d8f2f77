import { afterAll, describe, expect, it } from "vitest";
import { dbKind } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { concurrentSubscriptionEvents, duplicateOrderDeliveries } from "../integration/billing/duplicates";

await useFreshPostgres();
const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
afterAll(restore);

describe("payment webhook idempotency on PostgreSQL", () => {
  it("1,000 duplicate deliveries of order_created (50 concurrent), plus 200 re-framed bodies of the same order, grant once", async () => {
    expect(await dbKind()).toBe("postgres");
    const { ms, deliveries } = await duplicateOrderDeliveries({ identical: 1000, variants: 200, concurrency: 50, tag: "pg" });
    console.log(`billing-duplicates: ${deliveries} deliveries, 50 concurrent, ${ms} ms (${Math.round((deliveries / ms) * 1000)}/s)`);
  }, 300_000);

  it("200 concurrent duplicate and out-of-order subscription events yield one record in the newest state", async () => {
    await concurrentSubscriptionEvents({ copies: 200, concurrency: 50, tag: "pg" });
  }, 300_000);
});
