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
  const created = await client.json<{ secret: string }>("/api/keys", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "hostile" }) });
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

/** Sends `count` hostile bodies at once (half at the largest size, half just under the text bound) and measures health meanwhile. */
export async function healthUnderHostileBodies(baseUrl: string, secret: string, count = 8, model?: string): Promise<HealthUnderLoad> {
  const post = (body: string) =>
    fetch(`${baseUrl}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  const bodyOf = (bytes: number) => JSON.stringify({ ...(model ? { model } : {}), messages: [{ role: "user", content: text(bytes) }] });
  // The server's text bound, as its 413 states it.
  const probe = await fetch(`${baseUrl}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: bodyOf(LARGEST_BODY_BYTES - 1024) });
  const message = ((await probe.json()) as { error?: { message?: string } }).error?.message ?? "";
  const textLimit = Number(/the limit for text is (\d+) bytes/.exec(message)?.[1]);
  if (probe.status !== 413 || !textLimit) throw new Error(`expected a 413 naming the text bound, got ${probe.status}: ${message}`);
  const largest = bodyOf(LARGEST_BODY_BYTES - 1024);
  const underBound = bodyOf(textLimit - 64 * 1024);
  const sending = Promise.all(Array.from({ length: count }, (_, i) => post(i % 2 === 0 ? largest : underBound)));
  const latencies = await healthWhile(baseUrl, sending);
  const statuses = await sending;
  return { latencies, ...summarize(latencies), statuses, textLimit };
}
