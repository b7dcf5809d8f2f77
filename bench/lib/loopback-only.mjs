// Preloaded (node --import) into third-party servers the benchmarks start: every listen() without a
// host binds 127.0.0.1, never all interfaces (the benchmarks run servers on loopback only).
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const port = Number(first);
    const callback = args.find((a) => typeof a === "function");
    return listen.call(this, { port, host: "127.0.0.1" }, callback);
  }
  if (first && typeof first === "object" && !first.path && !first.host)
    return listen.call(this, { ...first, host: "127.0.0.1" }, ...args.slice(1));
  return listen.apply(this, args);
};
