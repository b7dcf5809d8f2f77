import { describe, expect, it } from "vitest";
import { isBlockedAddress } from "@/lib/outbound/safe-target";
import { retryDelay, RETRY_DELAYS_MS } from "@/lib/outbound/deliver-outbound";
import { wants } from "@/lib/outbound/event-types";

describe("outbound webhooks: where they may go", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "not-an-address",
  ])("refuses %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });

  it("retries after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, then every 8 h", () => {
    expect(Array.from({ length: 11 }, (_, i) => retryDelay(i + 1) / 1000)).toEqual([
      5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800, 28800, 28800,
    ]);
    expect(RETRY_DELAYS_MS).toHaveLength(9);
  });

  it("an endpoint subscribed to subscription.* wants every subscription event, nothing else", () => {
    expect(wants(["subscription.*"], "subscription.cancelled")).toBe(true);
    expect(wants(["subscription.*"], "credits.low")).toBe(false);
    expect(wants(["credits.low"], "credits.lowest")).toBe(false);
  });
});
