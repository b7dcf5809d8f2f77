import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbKind } from "@/lib/db/client";
import { useFreshPostgres } from "@/tests/helpers/pg";
import { rechargeRacingCharges } from "../integration/billing/auto-recharge-race";
import { startStripeKit, type StripeKit } from "../integration/billing/stripe-kit";

await useFreshPostgres();
let kit: StripeKit;
beforeAll(async () => {
  kit = await startStripeKit();
});
afterAll(async () => {
  await kit.close();
});

describe("auto-recharge on PostgreSQL", () => {
  it("32 concurrent charges crossing the threshold claim one top-up; 3 payment runs at once (three servers) pay it once", async () => {
    expect(await dbKind()).toBe("postgres");
    const rounds = [];
    for (let i = 0; i < 3; i++) rounds.push(await rechargeRacingCharges(kit, { charges: 32, instances: 3, tag: `pg${i}` }));
    console.log(`auto-recharge race: ${rounds.map((r) => `${r.charged} charged, balance ${r.balance}`).join("; ")}`);
  });
});
