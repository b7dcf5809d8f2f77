import { afterAll, describe, it } from "vitest";
import { closeDb } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { concurrentSubscriptionEvents, duplicateOrderDeliveries } from "./duplicates";

// Idempotency, not rate limiting, is under test here (the webhooks category allows 100 per IP and hour).
const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
afterAll(async () => {
  restore();
  await closeDb();
});

describe("duplicate payment deliveries on PGlite (the PostgreSQL suite runs 1,000 × 50 concurrent)", () => {
  it("150 identical order_created deliveries (10 concurrent) plus 30 re-framed ones grant once", async () => {
    await duplicateOrderDeliveries({ identical: 150, variants: 30, concurrency: 10, tag: "pglite" });
  }, 120_000);

  it("concurrent duplicate subscription events yield one record in the newest state", async () => {
    await concurrentSubscriptionEvents({ copies: 40, concurrency: 10, tag: "pglite" });
  }, 120_000);
});
