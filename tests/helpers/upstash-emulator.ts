import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A local emulator of the Upstash Redis REST protocol in front of a real redis-server, so the Upstash
 * rate-limit store is tested over its real wire protocol (no npm package emulates it):
 *   POST /             body ["CMD", "arg", ...]            -> { result } | 400 { error }
 *   POST /pipeline     body [["CMD", ...], ...]            -> [{ result } | { error }, ...]
 *   POST /multi-exec   body [["CMD", ...], ...] (atomic)   -> [{ result } | { error }, ...]
 *   Authorization: Bearer <token> (401 otherwise); `Upstash-Encoding: base64` encodes string results.
 * Lua scripts of @upstash/ratelimit start with `#!lua flags=allow-key-locking`, which Redis 7.0
 * rejects: EVAL / SCRIPT LOAD strip that line and EVALSHA maps the original script's sha1 to the
 * stripped one. 127.0.0.1 only, ephemeral port.
 */
export interface UpstashEmulator {
  url: string;
  token: string;
  /** Delay every answer (timeout tests). */
  setDelay(ms: number): void;
  /** Commands received, for assertions. */
  commands: string[][];
  close(): Promise<void>;
}

type Resp = string | number | null | Resp[] | RespError;
class RespError extends Error {}

/** A minimal RESP2 client on one connection (re-opened after a failure): answers come in order. */
class RedisConnection {
  private socket: Socket | null = null;
  private buffer = Buffer.alloc(0);
  private pending: Array<{ resolve: (v: Resp) => void; reject: (e: Error) => void }> = [];

  constructor(
    private readonly port: number,
    private readonly host = "127.0.0.1",
  ) {}

  private open(): Socket {
    if (this.socket) return this.socket;
    const socket = connect({ port: this.port, host: this.host });
    this.buffer = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    const fail = (error: Error) => {
      if (this.socket === socket) this.socket = null;
      socket.destroy();
      for (const p of this.pending.splice(0)) p.reject(error);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("connection to redis closed")));
    this.socket = socket;
    return socket;
  }

  send(args: Array<string | number>): Promise<Resp> {
    const socket = this.open();
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      const parts = [`*${args.length}\r\n`];
      for (const a of args) {
        const s = String(a);
        parts.push(`$${Buffer.byteLength(s)}\r\n${s}\r\n`);
      }
      socket.write(parts.join(""));
    });
  }

  close() {
    this.socket?.destroy();
    this.socket = null;
  }

  private drain() {
    while (this.pending.length > 0) {
      const parsed = parse(this.buffer, 0);
      if (!parsed) return;
      this.buffer = this.buffer.subarray(parsed.end);
      this.pending.shift()?.resolve(parsed.value);
    }
  }
}

function parse(buf: Buffer, start: number): { value: Resp; end: number } | null {
  const lineEnd = buf.indexOf("\r\n", start);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buf[start]);
  const line = buf.toString("utf8", start + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return { value: line, end: next };
    case "-":
      return { value: new RespError(line), end: next };
    case ":":
      return { value: Number(line), end: next };
    case "$": {
      const len = Number(line);
      if (len < 0) return { value: null, end: next };
      if (buf.length < next + len + 2) return null;
      return { value: buf.toString("utf8", next, next + len), end: next + len + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, end: next };
      const items: Resp[] = [];
      let pos = next;
      for (let i = 0; i < count; i++) {
        const item = parse(buf, pos);
        if (!item) return null;
        items.push(item.value);
        pos = item.end;
      }
      return { value: items, end: pos };
    }
    default:
      throw new Error(`unexpected RESP type ${type}`);
  }
}

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");
const SHEBANG = /^#!lua[^\n]*\n/;

function encode(value: Resp, base64: boolean): unknown {
  if (value instanceof RespError) return value.message;
  if (Array.isArray(value)) return value.map((v) => encode(v, base64));
  if (typeof value === "string" && base64 && value !== "OK") return Buffer.from(value).toString("base64");
  return value;
}

export async function startUpstashEmulator(options: { redisPort: number; token?: string }): Promise<UpstashEmulator> {
  const token = options.token ?? "test-upstash-token";
  const redis = new RedisConnection(options.redisPort);
  // original script sha1 -> sha1 of the script redis actually loaded (shebang stripped)
  const shaMap = new Map<string, string>();
  const commands: string[][] = [];
  let delay = 0;

  async function run(raw: unknown[]): Promise<Resp> {
    const args = raw.map((a) => (typeof a === "string" ? a : JSON.stringify(a)));
    commands.push(args);
    const name = args[0]?.toUpperCase();
    if (name === "EVAL" && SHEBANG.test(args[1] ?? "")) {
      const stripped = args[1].replace(SHEBANG, "");
      shaMap.set(sha1(args[1]), sha1(stripped));
      return redis.send(["EVAL", stripped, ...args.slice(2)]);
    }
    if (name === "EVALSHA" && shaMap.has(args[1])) {
      return redis.send(["EVALSHA", shaMap.get(args[1]) as string, ...args.slice(2)]);
    }
    if (name === "SCRIPT" && args[1]?.toUpperCase() === "LOAD" && SHEBANG.test(args[2] ?? "")) {
      const stripped = args[2].replace(SHEBANG, "");
      const loaded = await redis.send(["SCRIPT", "LOAD", stripped]);
      if (loaded instanceof RespError) return loaded;
      shaMap.set(sha1(args[2]), String(loaded));
      return sha1(args[2]);
    }
    return redis.send(args);
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const reply = (status: number, body: unknown) => {
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(status, { "content-type": "application/json" });
          res.end(JSON.stringify(body));
        };
        if (delay > 0) setTimeout(send, delay);
        else send();
      };
      if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: "Unauthorized" });
      if (req.method !== "POST") return reply(405, { error: "Method not allowed" });
      const base64 = String(req.headers["upstash-encoding"] ?? "").toLowerCase() === "base64";
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return reply(400, { error: "ERR failed to parse command" });
      }
      const path = (req.url ?? "/").split("?")[0].replace(/\/+$/, "");
      try {
        if (path === "" && Array.isArray(body)) {
          const value = await run(body);
          if (value instanceof RespError) return reply(400, { error: value.message });
          return reply(200, { result: encode(value, base64) });
        }
        if ((path === "/pipeline" || path === "/multi-exec") && Array.isArray(body)) {
          const list = body as unknown[][];
          if (path === "/multi-exec") {
            await redis.send(["MULTI"]);
            for (const cmd of list) await run(cmd).catch(() => undefined);
            const results = await redis.send(["EXEC"]);
            if (!Array.isArray(results)) return reply(400, { error: results instanceof RespError ? results.message : "ERR EXEC failed" });
            return reply(
              200,
              results.map((r) => (r instanceof RespError ? { error: r.message } : { result: encode(r, base64) })),
            );
          }
          const results = [];
          for (const cmd of list) {
            const value = await run(cmd);
            results.push(value instanceof RespError ? { error: value.message } : { result: encode(value, base64) });
          }
          return reply(200, results);
        }
        return reply(404, { error: "ERR unknown endpoint" });
      } catch (error) {
        // redis unreachable: Upstash answers a server error
        return reply(500, { error: `ERR ${(error as Error).message}` });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    commands,
    setDelay: (ms) => {
      delay = ms;
    },
    close: async () => {
      redis.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
