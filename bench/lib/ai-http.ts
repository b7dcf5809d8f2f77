import { Agent, request } from "node:http";

/**
 * HTTP measurement for bench/ai-gateway.ts: one timed JSON POST, one timed SSE stream (arrival time of
 * every event), and a bounded concurrent POST load loop. 127.0.0.1 only; keep-alive connections.
 */
export function assertLoopback(url: string): URL {
  const u = new URL(url);
  if (u.hostname !== "127.0.0.1") throw new Error(`benchmarks only talk to 127.0.0.1, not ${u.hostname}`);
  return u;
}

export const keepAliveAgent = (maxSockets: number) => new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });

export interface TimedResponse {
  status: number;
  ms: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/** POST a JSON body; time from send to the last byte of the answer. */
export function timedPost(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<TimedResponse> {
  const u = assertLoopback(url);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            ms: performance.now() - t0,
            body: Buffer.concat(chunks).toString("utf8"),
            headers: res.headers,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** What a streamed answer delivered, with arrival times (ms after the request was sent). */
export interface TimedStream {
  status: number;
  /** Arrival time of each text chunk. */
  chunkAt: number[];
  texts: string[];
  /** Gateway: the `event: meta` payload; direct: the usage chunk. */
  meta: unknown;
  done: boolean;
  errors: string[];
  totalMs: number;
}

/**
 * POST a streaming request and parse SSE as it arrives. `format` "openai" reads chat.completion.chunk
 * frames (text = choices[0].delta.content, non-empty); "gateway" reads our framing
 * ({type:"text"} / event: meta / {type:"error"} / [DONE]).
 */
export function timedStream(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: string,
  format: "openai" | "gateway",
  timeoutMs = 60_000,
): Promise<TimedStream> {
  const u = assertLoopback(url);
  return new Promise((resolve) => {
    const out: TimedStream = { status: 0, chunkAt: [], texts: [], meta: null, done: false, errors: [], totalMs: 0 };
    const t0 = performance.now();
    let buffer = "";
    const handleBlock = (block: string, at: number) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      const payload = data.join("\n");
      if (payload === "[DONE]") {
        out.done = true;
        return;
      }
      let parsed: any;
      try {
        parsed = JSON.parse(payload);
      } catch {
        out.errors.push(`unparsable event: ${payload.slice(0, 80)}`);
        return;
      }
      if (format === "gateway") {
        if (event === "meta") out.meta = parsed;
        else if (parsed?.type === "text") {
          out.chunkAt.push(at);
          out.texts.push(parsed.text);
        } else if (parsed?.type === "error") out.errors.push(String(parsed.error));
      } else {
        const content = parsed?.choices?.[0]?.delta?.content;
        if (typeof content === "string" && content.length > 0) {
          out.chunkAt.push(at);
          out.texts.push(content);
        }
        if (parsed?.usage) out.meta = parsed.usage;
      }
    };
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", accept: "text/event-stream", "content-length": Buffer.byteLength(body), ...headers },
      },
      (res) => {
        out.status = res.statusCode ?? 0;
        res.setEncoding("utf8");
        res.on("data", (text: string) => {
          const at = performance.now() - t0;
          buffer += text;
          let index: number;
          while ((index = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, index);
            buffer = buffer.slice(index + 2);
            if (block.trim()) handleBlock(block, at);
          }
        });
        res.on("end", () => {
          clearTimeout(timer);
          out.totalMs = performance.now() - t0;
          if (buffer.trim()) out.errors.push(`trailing bytes: ${buffer.slice(0, 80)}`);
          resolve(out);
        });
        res.on("error", (error) => {
          out.errors.push(`response error: ${error.message}`);
        });
      },
    );
    const timer = setTimeout(() => {
      out.errors.push(`timed out after ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on("error", (error) => {
      clearTimeout(timer);
      out.errors.push(`request error: ${error.message}`);
      out.totalMs = performance.now() - t0;
      resolve(out);
    });
    req.end(body);
  });
}

export interface PostLoadResult {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  rps: number;
  latencies: number[];
}

/**
 * `concurrency` workers send requests back to back (worker w uses headers(w)) until `maxRequests`
 * were sent or `maxMs` elapsed. method GET when body is undefined.
 */
export async function runPostLoad(options: {
  url: string;
  concurrency: number;
  maxRequests: number;
  maxMs: number;
  headers?: (worker: number) => Record<string, string>;
  body?: string;
  expectStatus?: number;
}): Promise<PostLoadResult> {
  const u = assertLoopback(options.url);
  const agent = keepAliveAgent(options.concurrency);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.maxMs;
  const one = (worker: number) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const headers: Record<string, string> = { ...(options.headers?.(worker) ?? {}) };
      if (options.body !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = String(Buffer.byteLength(options.body));
      }
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          method: options.body === undefined ? "GET" : "POST",
          agent,
          headers,
        },
        (res) => {
          res.on("data", () => undefined);
          res.on("end", () => {
            latencies.push(performance.now() - t0);
            const code = String(res.statusCode);
            statuses[code] = (statuses[code] ?? 0) + 1;
            if ((options.expectStatus ?? 200) !== res.statusCode) errors++;
            resolve();
          });
        },
      );
      req.on("error", () => {
        errors++;
        statuses.error = (statuses.error ?? 0) + 1;
        resolve();
      });
      req.end(options.body);
    });
  const worker = async (w: number) => {
    while (sent < options.maxRequests && performance.now() < deadline) {
      sent++;
      await one(w);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, w) => worker(w)));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { requests: latencies.length, errors, statuses, seconds, rps: latencies.length / seconds, latencies };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
