import { afterEach, describe, expect, it } from "vitest";
import { freeCycleKey } from "@/lib/credits";
import { bonusSpendable, insufficientCredits, monthStart, nextMonthStart } from "@/lib/credits/ledger";
import { setEnv } from "@/tests/helpers/env";

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

describe("calendar months (UTC)", () => {
  it("computes the month start, next month start and the free cycle key in UTC", () => {
    const at = new Date("2026-12-31T23:30:00-02:00"); // 2027-01-01T01:30Z
    expect(monthStart(at).toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(nextMonthStart(at).toISOString()).toBe("2027-02-01T00:00:00.000Z");
    expect(freeCycleKey(at)).toBe("2027-01");
    expect(freeCycleKey(new Date("2026-11-30T23:59:59.999Z"))).toBe("2026-11");
    expect(nextMonthStart(new Date("2026-12-15T00:00:00Z")).toISOString()).toBe("2027-01-01T00:00:00.000Z");
  });
});

describe("bonus spendability", () => {
  it("spends bonus credits when auto-use is on, or when the per-user toggle is off system-wide", () => {
    expect(bonusSpendable(true, true)).toBe(true);
    expect(bonusSpendable(false, true)).toBe(false);
    expect(bonusSpendable(false, false)).toBe(true);
    expect(bonusSpendable(true, false)).toBe(true);
  });

  it("reads the toggle from CREDITS_USER_TOGGLE_ENABLED by default", () => {
    restore = setEnv({ CREDITS_USER_TOGGLE_ENABLED: "false" });
    expect(bonusSpendable(false)).toBe(true);
    restore();
    restore = setEnv({ CREDITS_USER_TOGGLE_ENABLED: "true" });
    expect(bonusSpendable(false)).toBe(false);
  });
});

describe("insufficient credits", () => {
  it("is a 402-coded error naming the cost and the available credits", () => {
    const e = insufficientCredits(80, 12);
    expect(e.code).toBe("insufficient_credits");
    expect(e.message).toBe("Insufficient credits: this operation costs 80, you have 12 available");
  });
});
