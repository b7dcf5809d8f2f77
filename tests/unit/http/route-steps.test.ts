import { describe, expect, it } from "vitest";
import * as chat from "@/app/api/ai/chat/route";
import * as keys from "@/app/api/keys/route";
import * as status from "@/app/api/user/status/route";
import * as paymentWebhook from "@/app/api/webhooks/payment/route";
import * as completions from "@/app/v1/chat/completions/route";
import * as health from "@/app/api/health/route";
import { routeSteps } from "@/lib/http/handler";
import type { NextRouteHandler } from "@/lib/http/route";

/** A route's path is the list of steps its declaration makes (lib/http/route-steps.ts), read in one place. */
const stepsOf = (h: NextRouteHandler) => routeSteps(h.definition!);

describe("route steps", () => {
  it("every route: feature, caller, ids, account, input; a rate-limit category (counting every request) and an AI slot where declared", () => {
    expect(stepsOf(health.GET)).toEqual(["feature", "caller", "safeIds", "account", "input"]);
    expect(stepsOf(status.GET)).toEqual(["feature", "caller", "rateLimit", "safeIds", "account", "input"]);
    expect(stepsOf(keys.GET)).toEqual(["feature", "caller", "safeIds", "account", "input"]);
    expect(stepsOf(keys.POST)).toEqual(["feature", "caller", "rateLimit", "safeIds", "account", "input"]);
    expect(stepsOf(chat.POST)).toEqual(["feature", "caller", "safeIds", "aiSlot", "account", "input"]);
    expect(stepsOf(completions.POST)).toEqual(["feature", "caller", "safeIds", "aiSlot", "account", "input"]);
    // The webhooks' category counts only failed verifications: counted when one fails, never as a step.
    expect(stepsOf(paymentWebhook.POST)).toEqual(["feature", "caller", "safeIds", "account", "input"]);
  });
});
