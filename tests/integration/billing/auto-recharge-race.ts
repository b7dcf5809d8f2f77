import { expect } from "vitest";
import * as autoRecharge from "@/app/api/credits/auto-recharge/route";
import { runDueAutoRecharges } from "@/lib/billing/auto-recharge/run-auto-recharges";
import { reserveCredits } from "@/lib/credits";
import { db } from "@/lib/db/client";
import { call } from "@/tests/helpers/http";
import { balanceOf, type StripeKit } from "./stripe-kit";

/**
 * The auto-recharge race, shared by the embedded database (integration) and PostgreSQL (tests/pg):
 * an account with auto-recharge under 600 credits, `charges` concurrent charges of 50 taking it from
 * 1,500 to under the threshold, then `instances` payment runs at once (as servers would). Exactly one
 * top-up is claimed and paid once: 500 credits arrive once, the ledger sums to the balance.
 */
export async function rechargeRacingCharges(kit: StripeKit, input: { charges: number; instances: number; tag: string }) {
  const { user, cookie } = await kit.subscribedToBasic(`recharge-race-${input.tag}-${Date.now()}@example.com`);
  const prisma = await db();
  await prisma.user.update({ where: { id: user.id }, data: { bonusCreditsAutoUse: true } });
  await kit.buyPack(cookie); // 1,000 subscription + 500 pack credits; the card is saved
  const on = await call(autoRecharge.PUT, {
    method: "PUT",
    path: "/api/credits/auto-recharge",
    cookie,
    body: { enabled: true, threshold: 600, variantId: "local-bonus-basic-500", monthlyMaxCount: 5, monthlyMaxAmount: 5_000 },
  });
  expect(on.status).toBe(200);

  const outcomes = await Promise.allSettled(
    Array.from({ length: input.charges }, () => reserveCredits({ userId: user.id, amount: 50, operation: "chat" })),
  );
  const charged = outcomes.filter((o) => o.status === "fulfilled").length;
  const claims = await prisma.autoRecharge.findMany({ where: { accountId: user.id } });
  expect(claims).toHaveLength(1);
  expect(claims[0].status).toBe("claimed");

  const runs = await Promise.all(Array.from({ length: input.instances }, () => runDueAutoRecharges()));
  expect(runs.reduce((s, r) => s + r.paid, 0)).toBe(1);
  const paid = await prisma.autoRecharge.findMany({ where: { accountId: user.id } });
  expect(paid.map((r) => r.status)).toEqual(["succeeded"]);
  const intents = kit.simulator.events.filter(
    (e) =>
      e.event.type === "payment_intent.succeeded" &&
      (e.event.data as { object: { metadata?: { auto_recharge_id?: string } } }).object.metadata?.auto_recharge_id === paid[0].id,
  );
  expect(intents).toHaveLength(1);
  const packs = await prisma.bonusPurchase.findMany({ where: { userId: user.id } });
  expect(packs).toHaveLength(2);
  const balance = await balanceOf(user.id);
  expect(balance.total).toBe(1500 - 50 * charged + 500);
  expect(balance.ledger).toBe(balance.total);
  return { charged, balance: balance.total };
}
