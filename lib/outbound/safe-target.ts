import { lookup } from "node:dns";
import { BlockList, isIP } from "node:net";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";

/**
 * Where an outbound webhook may be sent (SSRF guards): in production only https, never to a private,
 * loopback, link-local (cloud metadata: 169.254.169.254), unique-local, CGNAT, multicast or unspecified
 * address, checked on every address the name resolves to at the moment of sending (the connection
 * uses the checked address, so DNS rebinding between the check and the connection cannot happen).
 * Outside production plain http and local addresses are allowed (local receivers while developing),
 * unless OUTBOUND_WEBHOOKS_ALLOW_PRIVATE=false. Where they are refused, a URL's port is 80 or 443 or one
 * of OUTBOUND_WEBHOOKS_ALLOWED_PORTS (no probing of a host's other services through our deliveries).
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
  ["2001:db8::", 32],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv6");
}

/** Whether private addresses are allowed (outside production, by default). */
export function privateTargetsAllowed(): boolean {
  const e = env();
  return !e.isProduction && e.OUTBOUND_WEBHOOKS_ALLOW_PRIVATE;
}

/** Whether an address is one a webhook may never reach (IPv4-mapped IPv6 addresses are checked as IPv4). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Whether a URL's port may be reached (any outside production; else 80, 443 and OUTBOUND_WEBHOOKS_ALLOWED_PORTS). */
export function portAllowed(url: URL): boolean {
  if (privateTargetsAllowed()) return true;
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return port === 80 || port === 443 || env().OUTBOUND_WEBHOOKS_ALLOWED_PORTS.includes(port);
}

/** Why a URL's port may not be reached. */
export const portRefusal = (url: URL) =>
  `port ${url.port} is not allowed: webhooks go to ports 80 and 443${env().OUTBOUND_WEBHOOKS_ALLOWED_PORTS.length ? ` and ${env().OUTBOUND_WEBHOOKS_ALLOWED_PORTS.join(", ")}` : ""} (OUTBOUND_WEBHOOKS_ALLOWED_PORTS adds more)`;

/** A URL an endpoint may have: http(s) (https in production), no credentials, an allowed port, at most 2,000 characters. */
export function checkEndpointUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("validation_failed", "Invalid body: url: must be an absolute URL", { param: "url" });
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && privateTargetsAllowed())) {
    throw new AppError("validation_failed", "Invalid body: url: must be an https URL", { param: "url" });
  }
  if (url.username || url.password)
    throw new AppError("validation_failed", "Invalid body: url: must not carry credentials", { param: "url" });
  if (!portAllowed(url)) throw new AppError("validation_failed", `Invalid body: url: ${portRefusal(url)}`, { param: "url" });
  if (!privateTargetsAllowed() && isIP(url.hostname.replace(/^\[|\]$/g, "")) && isBlockedAddress(url.hostname.replace(/^\[|\]$/g, ""))) {
    throw new AppError("validation_failed", "Invalid body: url: must not be a private, loopback or link-local address", { param: "url" });
  }
  return url;
}

/** The addresses a host name resolves to, refused (with the reason) when any of them may not be reached. */
export function resolveSafely(hostname: string): Promise<{ address: string; family: number }[]> {
  return new Promise((resolve, reject) => {
    lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return reject(new Error(`the host name does not resolve (${error.code ?? error.message})`));
      if (!privateTargetsAllowed()) {
        const bad = addresses.find((a) => isBlockedAddress(a.address));
        if (bad) return reject(new Error(`the host resolves to ${bad.address}, a private, loopback or link-local address`));
      }
      resolve(addresses);
    });
  });
}

/** A `lookup` for node:http(s) that connects only to an address resolveSafely accepted. */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void,
): void {
  resolveSafely(hostname).then(
    (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)),
    (error: Error) => callback(Object.assign(error, { code: "EBLOCKED" }), "", 0),
  );
}
