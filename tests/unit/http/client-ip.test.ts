import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clientIp, isPrivateAddress, PEER_HEADER, PEER_TOKEN_VARIABLE } from "@/lib/http/client-ip";
import { setEnv } from "@/tests/helpers/env";

const TOKEN = "test-peer-token-0123";
let restore: () => void;
beforeEach(() => {
  restore = setEnv({ [PEER_TOKEN_VARIABLE]: TOKEN, TRUSTED_PROXY_HOPS: undefined });
});
afterEach(() => restore());

/** A request as the standalone server hands it on: the client's headers plus the authenticated peer. */
function request(forwardedFor: string | null, peer: string | null, token = TOKEN): Request {
  const headers = new Headers();
  if (forwardedFor !== null) headers.set("x-forwarded-for", forwardedFor);
  if (peer !== null) headers.set(PEER_HEADER, `${token} ${peer}`);
  return new Request("http://app.test/api/webhooks/payment", { headers });
}

describe("client address for per-IP limits", () => {
  it("behind one proxy (default hops=1): the entry the proxy appended, whatever the client put before it", () => {
    expect(clientIp(request("198.51.100.7", "127.0.0.1"))).toBe("198.51.100.7");
    // Rotating or prepended values the client writes do not move the address.
    for (const spoof of ["1.2.3.4", "5.6.7.8, 9.9.9.9", "victim-address"]) {
      expect(clientIp(request(`${spoof}, 198.51.100.7`, "10.0.0.2"))).toBe("198.51.100.7");
    }
  });

  it("hops=2 takes the second entry from the right", () => {
    setEnv({ TRUSTED_PROXY_HOPS: "2" });
    expect(clientIp(request("6.6.6.6, 198.51.100.7, 172.16.0.9", "10.0.0.2"))).toBe("198.51.100.7");
  });

  it("hops=0 (exposed directly): the socket's peer, never the header", () => {
    setEnv({ TRUSTED_PROXY_HOPS: "0" });
    expect(clientIp(request("1.2.3.4", "192.168.1.20"))).toBe("192.168.1.20");
  });

  it("a public socket peer is the client itself: no proxy of ours connects from the internet", () => {
    expect(clientIp(request("1.2.3.4", "203.0.113.5"))).toBe("203.0.113.5");
    expect(clientIp(request("1.2.3.4", "::ffff:203.0.113.5"))).toBe("203.0.113.5");
  });

  it("no header: the socket's peer; a peer header without this process's token is ignored", () => {
    expect(clientIp(request(null, "127.0.0.1"))).toBe("127.0.0.1");
    expect(clientIp(request("198.51.100.7", "203.0.113.99", "forged-token"))).toBe("198.51.100.7");
    setEnv({ [PEER_TOKEN_VARIABLE]: undefined });
    expect(clientIp(request("198.51.100.7", "203.0.113.99", TOKEN))).toBe("198.51.100.7");
  });

  it("knows the private ranges", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.0.1",
      "169.254.1.1",
      "100.64.0.1",
      "::1",
      "fd00::1",
      "fe80::1",
      "::ffff:10.0.0.1",
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["8.8.8.8", "172.32.0.1", "203.0.113.5", "2001:db8::1"]) expect(isPrivateAddress(a), a).toBe(false);
  });
});
