import { Agent, request } from "node:http";

/**
 * A bounded concurrent HTTP load loop against 127.0.0.1: `concurrency` workers send requests back to
 * back over keep-alive connections until `maxRequests` were sent or `maxMs` elapsed. Latency is
 * measured per request (send to last byte).
 */
export interface LoadOptions {
  url: string;
  /** Headers per request (index = request number), e.g. to rotate users and client addresses. */
  headers?: (n: number) => Record<string, string>;
  concurrency: number;
  maxRequests: number;
  maxMs: number;
  /** Status every answer must have; anything else is counted as an error. */
  expectStatus?: number;
  /** Counts the answers that carry this response header (e.g. x-ratelimit-limit). */
  countHeader?: string;
}

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  /** Answers carrying `countHeader`. */
  withHeader: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  if (target.hostname !== "127.0.0.1") throw new Error("load tests only run against 127.0.0.1");
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  let errors = 0;
  let withHeader = 0;
  const started = performance.now();
  const deadline = started + options.maxMs;

  const one = (n: number) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: "GET",
          agent,
          headers: options.headers?.(n) ?? {},
        },
        (res) => {
          res.on("data", () => undefined);
          res.on("end", () => {
            latencies.push(performance.now() - t0);
            const code = String(res.statusCode);
            statuses[code] = (statuses[code] ?? 0) + 1;
            if (options.expectStatus && res.statusCode !== options.expectStatus) errors++;
            if (options.countHeader && res.headers[options.countHeader.toLowerCase()] !== undefined) withHeader++;
            resolve();
          });
        },
      );
      req.on("error", () => {
        errors++;
        statuses.error = (statuses.error ?? 0) + 1;
        resolve();
      });
      req.end();
    });

  const worker = async () => {
    while (sent < options.maxRequests && performance.now() < deadline) {
      const n = sent++;
      await one(n);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    statuses,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    withHeader,
  };
}
