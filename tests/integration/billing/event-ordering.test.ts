import { afterAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db/client";
import { signIn } from "@/tests/helpers/http";
import { deliver, invoiceEvent, orderEvent, subscriptionEvent } from "./fixtures";

afterAll(closeDb);

/** Seeded PRNG (mulberry32), so a failing ordering can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const t = (day: number, second = 0) => new Date(Date.UTC(2026, 10, day, 0, 0, second)).toISOString();
/**
 * The upgrade's month, placed so that today is its 27th day: its cancellation's end (day 29) is still
 * ahead, as the scenario means (with fixed dates it ran out once the calendar passed them).
 */
const upgradeMonth = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - 26 * 86_400_000;
const u = (day: number, second = 0) => new Date(upgradeMonth + (day - 1) * 86_400_000 + second * 1000).toISOString();

/** A year of a subscription: start, upgrade, failed renewal and recovery, cancel, resume, renewal, a bonus order. */
function lifeOfAnUpgrade(sub: string, userId: string) {
  const s = { id: sub, userId };
  return [
    subscriptionEvent("subscription_created", {
      ...s,
      variantId: "local-basic-monthly",
      status: "active",
      updatedAt: u(1),
      renewsAt: u(28),
    }),
    invoiceEvent("subscription_payment_success", {
      id: `${sub}-i1`,
      subscriptionId: sub,
      userId,
      billingReason: "initial",
      updatedAt: u(1, 1),
    }),
    subscriptionEvent("subscription_updated", { ...s, variantId: "local-pro-monthly", status: "active", updatedAt: u(5), renewsAt: u(28) }),
    invoiceEvent("subscription_payment_failed", { id: `${sub}-i2`, subscriptionId: sub, userId, updatedAt: u(28) }),
    subscriptionEvent("subscription_updated", {
      ...s,
      variantId: "local-pro-monthly",
      status: "past_due",
      updatedAt: u(28, 1),
      renewsAt: u(28),
    }),
    invoiceEvent("subscription_payment_recovered", { id: `${sub}-i2`, subscriptionId: sub, userId, updatedAt: u(29) }),
    subscriptionEvent("subscription_updated", {
      ...s,
      variantId: "local-pro-monthly",
      status: "active",
      updatedAt: u(29, 1),
      renewsAt: u(29),
    }),
    subscriptionEvent("subscription_cancelled", {
      ...s,
      variantId: "local-pro-monthly",
      status: "cancelled",
      endsAt: u(29),
      updatedAt: u(20 + 10),
    }),
    subscriptionEvent("subscription_resumed", {
      ...s,
      variantId: "local-pro-monthly",
      status: "active",
      endsAt: null,
      updatedAt: u(30, 5),
      renewsAt: u(29),
    }),
    orderEvent({ id: `${sub}-order`, userId, variantId: "local-bonus-pro-2000" }),
  ];
}

/** A trial that is paused, unpaused, cancelled and expires. */
function lifeOfATrial(sub: string, userId: string) {
  const s = { id: sub, userId, variantId: "local-enterprise-yearly" };
  return [
    subscriptionEvent("subscription_created", { ...s, status: "on_trial", trialEndsAt: t(15), updatedAt: t(1) }),
    invoiceEvent("subscription_payment_success", {
      id: `${sub}-i1`,
      subscriptionId: sub,
      userId,
      billingReason: "initial",
      updatedAt: t(1, 1),
    }),
    subscriptionEvent("subscription_paused", { ...s, status: "paused", trialEndsAt: t(15), updatedAt: t(3) }),
    subscriptionEvent("subscription_unpaused", { ...s, status: "on_trial", trialEndsAt: t(15), updatedAt: t(4) }),
    subscriptionEvent("subscription_cancelled", { ...s, status: "cancelled", trialEndsAt: t(15), endsAt: t(15), updatedAt: t(6) }),
    invoiceEvent("subscription_payment_failed", { id: `${sub}-i2`, subscriptionId: sub, userId, updatedAt: t(15) }),
    subscriptionEvent("subscription_expired", { ...s, status: "expired", trialEndsAt: t(15), endsAt: t(15), updatedAt: t(15, 1) }),
  ];
}

async function finalState(sub: string, userId: string) {
  const prisma = await db();
  const row = await prisma.subscription.findUniqueOrThrow({ where: { providerSubscriptionId: sub } });
  const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const deliveries = await prisma.webhookDelivery.groupBy({ by: ["status"], where: { objectId: { startsWith: sub } }, _count: true });
  return {
    subscription: {
      status: row.status,
      tier: row.tier,
      billingPeriod: row.billingPeriod,
      variantId: row.variantId,
      endsAt: row.endsAt?.toISOString() ?? null,
      trialEndsAt: row.trialEndsAt?.toISOString() ?? null,
      currentPeriodEnd: row.currentPeriodEnd?.toISOString() ?? null,
      paymentFailedAt: row.paymentFailedAt?.toISOString() ?? null,
      providerUpdatedAt: row.providerUpdatedAt?.toISOString(),
    },
    user: { tier: user.tier, billingPeriod: user.billingPeriod, hasUsedTrial: user.hasUsedTrial },
    bonusPurchases: await prisma.bonusPurchase.count({ where: { userId } }),
    subscriptionCredits: (await prisma.creditBalance.findUniqueOrThrow({ where: { userId } })).subscriptionCredits,
    unsettled: deliveries.filter((d) => d.status !== "processed" && d.status !== "ignored").map((d) => d.status),
  };
}

async function run(scenario: typeof lifeOfAnUpgrade, tag: string, order: (events: unknown[]) => unknown[]) {
  const { user } = await signIn(`${tag}@example.com`);
  const sub = `sub-${tag}`;
  for (const event of order(scenario(sub, user.id))) {
    const res = await deliver(event);
    expect(res.status).toBe(200);
  }
  return finalState(sub, user.id);
}

describe("event ordering: 200 random orderings end in the state of the correct order", () => {
  for (const [name, scenario] of [
    ["upgrade, failed renewal, recovery, cancel, resume", lifeOfAnUpgrade],
    ["trial paused, cancelled, expired", lifeOfATrial],
  ] as const) {
    it(`${name} (100 orderings)`, async () => {
      const expected = await run(scenario, `${scenario.name}-inorder`, (events) => events);
      expect(expected.unsettled).toEqual([]);
      if (scenario === lifeOfAnUpgrade) {
        expect(expected.subscription).toMatchObject({ status: "active", tier: "pro", endsAt: null, paymentFailedAt: null });
        expect(expected.user.tier).toBe("pro");
        expect(expected.bonusPurchases).toBe(1);
        expect(expected.subscriptionCredits).toBe(5000);
      } else {
        expect(expected.subscription).toMatchObject({ status: "expired", tier: "enterprise", paymentFailedAt: t(15) });
        expect(expected.user).toEqual({ tier: "free", billingPeriod: "monthly", hasUsedTrial: true });
        expect(expected.subscriptionCredits).toBe(200);
      }
      const random = rng(scenario === lifeOfAnUpgrade ? 42 : 4242);
      for (let i = 0; i < 100; i++) {
        const seedOrder = (events: unknown[]) => shuffle(events, random);
        const got = await run(scenario, `${scenario.name}-${i}`, seedOrder);
        expect(got, `ordering #${i}`).toEqual(expected);
      }
    }, 300_000);
  }
});
