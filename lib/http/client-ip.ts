import { env } from "@/lib/config/env";

/**
 * The client address for per-IP rate limits: the address a trusted proxy saw, never one the client
 * wrote.
 *
 * X-Forwarded-For is a list each proxy appends to; everything left of what our own proxies wrote is
 * the client's to choose. With TRUSTED_PROXY_HOPS=N (default 1) proxies in front of the app, the
 * client is the N-th entry from the right (Vercel overwrites the header with the client address, and
 * one nginx/Caddy appends it: the rightmost entry in both). N=0 means nothing sits in front: the
 * socket's peer is the client.
 *
 * Next.js itself only fills X-Forwarded-For when the request has none, so a server exposed directly
 * would pass a client-written value on. The standalone server (scripts/preflight.ts) therefore tells
 * us the socket's peer in PEER_HEADER, authenticated by a token only this process knows; when that
 * peer is a public address, no proxy of ours sits in front (proxies reach the app over loopback or a
 * private network), and the peer itself is the client, whatever the header says.
 */
export const PEER_HEADER = "x-app-peer-address";
/** Set by the standalone server at start; absent elsewhere (next dev, Vercel), where the header is ignored. */
export const PEER_TOKEN_VARIABLE = "__APP_PEER_TOKEN";

function socketPeer(req: Request): string | null {
  const token = process.env[PEER_TOKEN_VARIABLE];
  const value = req.headers.get(PEER_HEADER);
  if (!token || !value) return null;
  const space = value.indexOf(" ");
  if (space < 0 || value.slice(0, space) !== token) return null;
  return normalize(value.slice(space + 1)) || null;
}

function normalize(address: string): string {
  const a = address.trim();
  return a.startsWith("::ffff:") && a.includes(".") ? a.slice(7) : a;
}

/** Loopback, private, link-local and carrier-grade NAT ranges: where a deployment's own proxies live. */
export function isPrivateAddress(address: string): boolean {
  const a = normalize(address).toLowerCase();
  const v4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(a);
  if (v4) {
    const [x, y] = [Number(v4[1]), Number(v4[2])];
    return (
      x === 10 ||
      x === 127 ||
      (x === 172 && y >= 16 && y <= 31) ||
      (x === 192 && y === 168) ||
      (x === 169 && y === 254) ||
      (x === 100 && y >= 64 && y <= 127)
    );
  }
  return (
    a === "::1" ||
    a.startsWith("fc") ||
    a.startsWith("fd") ||
    a.startsWith("fe8") ||
    a.startsWith("fe9") ||
    a.startsWith("fea") ||
    a.startsWith("feb")
  );
}

export function clientIp(req: Request): string | null {
  const peer = socketPeer(req);
  const hops = env().TRUSTED_PROXY_HOPS;
  if (peer && (hops === 0 || !isPrivateAddress(peer))) return peer;
  const entries = (req.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((e) => normalize(e))
    .filter(Boolean);
  if (hops === 0) return peer ?? entries.at(-1) ?? null;
  if (entries.length >= hops) return entries[entries.length - hops];
  // Fewer entries than proxies: the request skipped one of them; the closest address we know.
  return peer ?? entries[0] ?? null;
}
