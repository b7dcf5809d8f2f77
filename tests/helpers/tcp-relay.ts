import net from "node:net";

/**
 * A TCP relay on 127.0.0.1 in front of a server (PostgreSQL in the outage tests): `down()` drops every
 * connection and refuses new ones, `up()` accepts again, `reset()` resets every connection (a TCP RST,
 * as a crashed peer or a middlebox sends) and keeps accepting, `restart(ms)` is down and up with a pause between,
 * so a test can make a database unreachable without touching the shared test server.
 */
export function tcpRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  let accepting = true;
  const server = net.createServer((client) => {
    if (!accepting) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  const relay = {
    listen: () =>
      new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port))),
    down() {
      accepting = false;
      for (const s of sockets) s.destroy();
    },
    up() {
      accepting = true;
    },
    reset() {
      for (const s of sockets) s.resetAndDestroy();
    },
    async restart(ms: number) {
      relay.down();
      await new Promise((r) => setTimeout(r, ms));
      relay.up();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return relay;
}
