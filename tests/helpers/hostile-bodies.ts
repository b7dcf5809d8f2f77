import { Client } from "@/tests/e2e/client";

/**
 * The free denial of service of security round three, as an attacker sends it: one free account,
 * one API key, and at once the largest text-only bodies /v1/chat/completions reads (under the 27.9 MB
 * bound sized for four images) and bodies just under the text bound (parsed, then counted against
 * the largest model's context), while /api/health is asked one request after another. Used by the
 * e2e suite (a bound with a generous margin) and bench/health-under-load.ts (the figure).
 */
export interface HealthUnderLoad {
  /** Every /api/health latency measured while the bodies were in flight (ms). */
  latencies: number[];
  p50: number;
  p99: number;
  max: number;
  /** Status of each hostile body's answer. */
  statuses: number[];
  /** The text bound the server reported (bytes). */
  textLimit: number;
}

const SENTENCE = "The quick brown fox jumps over the lazy dog while the attacker waits. ";
const text = (bytes: number) => SENTENCE.repeat(Math.ceil(bytes / SENTENCE.length)).slice(0, bytes);
/** The largest JSON body /v1/chat/completions reads (STREAM_MAX_BODY_BYTES: four 5 MiB images as base64 and 1 MiB). */
export const LARGEST_BODY_BYTES = Math.ceil((4 * 5 * 1024 * 1024 * 4) / 3) + 1024 * 1024;

export async function keyFor(baseUrl: string, email: string): Promise<string> {
  const client = new Client(baseUrl);
  const signedIn = await client.signIn(email);
  if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status}`);
  const created = await client.json<{ secret: string }>("/api/keys", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "hostile" }),
  });
  if (created.status !== 200) throw new Error(`key not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.secret;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];

/** Health latencies, one request after another, for as long as `busy` is pending (at least `minSamples`). */
export async function healthWhile(baseUrl: string, busy: Promise<unknown>, minSamples = 20): Promise<number[]> {
  let done = false;
  void busy.finally(() => (done = true));
  const latencies: number[] = [];
  while (!done || latencies.length < minSamples) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/api/health`);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 5));
  }
  return latencies;
}

export function summarize(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] };
}

/**
 * The attacker's side, in its own process (so its work of building and sending 8 large bodies never
 * delays the health requests measured here): builds the bodies, then sends them all at once, and
 * prints their statuses as JSON.
 */
const SENDER = `
const { url, secret, count, largest, underBound, model } = JSON.parse(process.env.HOSTILE);
const sentence = ${JSON.stringify(SENTENCE)};
const text = (n) => sentence.repeat(Math.ceil(n / sentence.length)).slice(0, n);
const bodyOf = (n) => new Blob([JSON.stringify({ ...(model ? { model } : {}), messages: [{ role: "user", content: text(n) }] })]);
const bodies = [bodyOf(largest), bodyOf(underBound)];
process.stdout.write("ready\\n");
process.stdin.once("data", async () => {
  const statuses = await Promise.all(Array.from({ length: count }, (_, i) =>
    fetch(url, { method: "POST", headers: { authorization: "Bearer " + secret, "content-type": "application/json" }, body: bodies[i % 2] })
      .then(async (r) => { await r.arrayBuffer(); return r.status; }, () => 0)));
  process.stdout.write(JSON.stringify(statuses) + "\\n");
  process.exit(0);
});
`;

/** Sends `count` hostile bodies at once (half at the largest size, half just under the text bound) from another process, and measures health meanwhile. */
export async function healthUnderHostileBodies(baseUrl: string, secret: string, count = 8, model?: string): Promise<HealthUnderLoad> {
  const url = `${baseUrl}/v1/chat/completions`;
  // The server's text bound, as its 413 states it.
  const probe = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: text(LARGEST_BODY_BYTES - 1024) }] }),
  });
  const message = ((await probe.json()) as { error?: { message?: string } }).error?.message ?? "";
  const textLimit = Number(/the limit for text is (\d+) bytes/.exec(message)?.[1]);
  if (probe.status !== 413 || !textLimit) throw new Error(`expected a 413 naming the text bound, got ${probe.status}: ${message}`);
  const { spawn } = await import("node:child_process");
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const path = await import("node:path");
  const script = path.join(mkdtempSync(path.join(tmpdir(), "hostile-")), "sender.mjs");
  writeFileSync(script, SENDER);
  // A plain Node process: none of the test runner's loaders.
  const { NODE_OPTIONS: _options, ...env } = process.env;
  const child = spawn(process.execPath, [script], {
    env: {
      ...env,
      HOSTILE: JSON.stringify({ url, secret, count, largest: LARGEST_BODY_BYTES - 1024, underBound: textLimit - 64 * 1024, model }),
    },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: string[] = [];
  let resolveLine: (() => void) | null = null;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    lines.push(...chunk.split("\n").filter(Boolean));
    resolveLine?.();
  });
  const nextLine = async (): Promise<string> => {
    while (lines.length === 0) await new Promise<void>((r) => (resolveLine = r));
    return lines.shift() as string;
  };
  if ((await nextLine()) !== "ready") throw new Error("the sender did not start");
  child.stdin.write("go\n");
  const sending = nextLine().then((line) => JSON.parse(line) as number[]);
  const latencies = await healthWhile(baseUrl, sending);
  const statuses = await sending;
  return { latencies, ...summarize(latencies), statuses, textLimit };
}
