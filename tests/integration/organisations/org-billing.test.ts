import { afterAll, describe, expect, it } from "vitest";
import { POST as creditsCheckout } from "@/app/api/credits/checkout/route";
import { GET as bonusPackages } from "@/app/api/credits/bonus-packages/route";
import { POST as cancel } from "@/app/api/payments/cancel-subscription/route";
import { POST as createCheckout } from "@/app/api/payments/create-checkout/route";
import { GET as subscription } from "@/app/api/payments/subscription/route";
import { POST as portal } from "@/app/api/payments/customer-portal/route";
import { POST as completeCheckout } from "@/app/api/simulator/checkout/route";
import { GET as orgGet } from "@/app/api/orgs/[id]/route";
import { GET as status } from "@/app/api/user/status/route";
import { closeDb, db } from "@/lib/db/client";
import { call } from "@/tests/helpers/http";
import { actingAs, team } from "./org-test-kit";

afterAll(closeDb);

const form = (fields: Record<string, string>) => ({
  rawBody: new URLSearchParams(fields).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
});
const checkoutId = (url: string) => /\/simulator\/checkout\/([^/?]+)$/.exec(url)?.[1] as string;

describe("an organisation's own subscription and bonus credits (checkout simulator, signed webhooks)", () => {
  it("an admin buys a plan for the organisation: the subscription and its allocation attach to it, not to the admin", async () => {
    const t = await team();
    const id = t.orgId;
    const asOrg = actingAs(id);
    const refused = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie: t.member.cookie,
      headers: asOrg,
      body: { variantId: "local-pro-monthly" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/owner and admins/);

    const res = await call(createCheckout, {
      path: "/api/payments/create-checkout",
      cookie: t.admin.cookie,
      headers: asOrg,
      body: { variantId: "local-pro-monthly" },
    });
    expect(res.status).toBe(200);
    const done = await call(completeCheckout, {
      method: "POST",
      path: "/api/simulator/checkout",
      ...form({ id: checkoutId(res.body.checkoutUrl) }),
    });
    expect(done.status).toBe(303);

    const wallet = await call(orgGet, { path: `/api/orgs/${id}`, params: { id }, cookie: t.member.cookie });
    expect(wallet.body.wallet).toMatchObject({ tier: "pro", monthlyAllocation: 5000, subscriptionCredits: 5000 });
    const sub = await call(subscription, { path: "/api/payments/subscription", cookie: t.member.cookie, headers: asOrg });
    expect(sub.status).toBe(200);
    expect(JSON.stringify(sub.body)).toContain("pro");
    // The admin's own account is untouched.
    const own = await call(status, { path: "/api/user/status", cookie: t.admin.cookie });
    expect(own.body.status).toBe("free");
    const prisma = await db();
    expect(await prisma.subscription.count({ where: { userId: t.admin.user.id } })).toBe(0);
    expect(await prisma.subscription.count({ where: { userId: id, status: "active" } })).toBe(1);

    // Bonus packages of the organisation's tier; bought by an admin.
    const packages = await call(bonusPackages, { path: "/api/credits/bonus-packages", cookie: t.member.cookie, headers: asOrg });
    expect(packages.status).toBe(200);
    const variantId = packages.body.packages[0].variantId;
    expect(
      (await call(creditsCheckout, { path: "/api/credits/checkout", cookie: t.member.cookie, headers: asOrg, body: { variantId } })).status,
    ).toBe(403);
    const bonus = await call(creditsCheckout, {
      path: "/api/credits/checkout",
      cookie: t.owner.cookie,
      headers: asOrg,
      body: { variantId },
    });
    expect(bonus.status).toBe(200);
    await call(completeCheckout, { method: "POST", path: "/api/simulator/checkout", ...form({ id: checkoutId(bonus.body.checkoutUrl) }) });
    const after = await call(orgGet, { path: `/api/orgs/${id}`, params: { id }, cookie: t.owner.cookie });
    expect(after.body.wallet.bonusCredits).toBe(packages.body.packages[0].credits);

    // Cancel and the portal: owner and admins only.
    expect((await call(portal, { path: "/api/payments/customer-portal", cookie: t.member.cookie, headers: asOrg })).status).toBe(403);
    expect((await call(cancel, { path: "/api/payments/cancel-subscription", cookie: t.member.cookie, headers: asOrg })).status).toBe(403);
    const cancelled = await call(cancel, { path: "/api/payments/cancel-subscription", cookie: t.owner.cookie, headers: asOrg });
    expect(cancelled.status).toBe(200);
    expect(await prisma.subscription.count({ where: { userId: id, status: "cancelled" } })).toBe(1);
  });
});
