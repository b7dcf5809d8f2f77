import cluster from "node:cluster";
import { processState } from "@/lib/process-state";

/**
 * GET /api/metrics with WEB_CONCURRENCY (lib/server/server-processes.ts): the worker that took the
 * scrape asks the primary, the primary asks every worker for its metrics as JSON, adds them up
 * (prom-client's cluster aggregation) and sends the exposition back. All over node:cluster's IPC
 * channel; messages carry their own type names so other IPC traffic passes by.
 */
const ASK_PRIMARY = "app:metrics-of-every-process";
const PRIMARY_ANSWER = "app:metrics-of-every-process:answer";
const ASK_WORKER = "app:metrics-of-this-process";
const WORKER_ANSWER = "app:metrics-of-this-process:answer";
/** A worker busy for this long is left out of the sum rather than failing the scrape. */
export const WORKER_ANSWER_MS = 4_000;
/**
 * How long a worker waits for the primary's sum before answering with its own metrics: longer than
 * WORKER_ANSWER_MS, so it happens only when the primary itself is stuck; a scrape then still gets an
 * answer (one process's numbers, which Prometheus sees as counters going down: a rare, visible gap).
 */
export const PRIMARY_ANSWER_MS = 6_000;

interface Exposition {
  contentType: string;
  body: string;
}
type Message = { type?: string; id?: number; metrics?: unknown[]; error?: string } & Partial<Exposition>;

const waiting = processState("metrics-primary-requests", () => ({
  next: 1,
  pending: new Map<number, (answer: Exposition | null) => void>(),
  listening: false,
}));

/** In a worker of WEB_CONCURRENCY: the sum of every process's metrics, or null (not a worker, or no answer). */
export function metricsOfEveryProcess(): Promise<Exposition | null> {
  if (!cluster.isWorker || !process.send) return Promise.resolve(null);
  if (!waiting.listening) {
    waiting.listening = true;
    process.on("message", (message: Message) => {
      if (message?.type !== PRIMARY_ANSWER || message.id === undefined) return;
      const resolve = waiting.pending.get(message.id);
      waiting.pending.delete(message.id);
      resolve?.(message.error || message.body === undefined ? null : { contentType: message.contentType!, body: message.body });
    });
  }
  const id = waiting.next++;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      waiting.pending.delete(id);
      resolve(null);
    }, PRIMARY_ANSWER_MS);
    waiting.pending.set(id, (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
    process.send!({ type: ASK_PRIMARY, id });
  });
}

/** In a worker, from its start: answers the primary's request for this process's metrics. */
export function answerMetricsRequests(read: () => Promise<unknown[]>): void {
  if (!cluster.isWorker) return;
  process.on("message", (message: Message) => {
    if (message?.type !== ASK_WORKER) return;
    read().then(
      (metrics) => process.send?.({ type: WORKER_ANSWER, id: message.id, metrics }),
      (error: unknown) => process.send?.({ type: WORKER_ANSWER, id: message.id, error: String(error) }),
    );
  });
}

/**
 * In the primary: answers workers' ASK_PRIMARY by collecting every connected worker's metrics (those
 * that answer within WORKER_ANSWER_MS) and adding them up with `aggregate`.
 */
export function serveMetricsToWorkers(aggregate: (perProcess: unknown[][]) => Promise<Exposition>): void {
  let next = 1;
  const collecting = new Map<number, { expected: number; got: unknown[][]; finish: () => void }>();
  cluster.on("message", (worker, message: Message) => {
    if (message?.type === WORKER_ANSWER && message.id !== undefined) {
      const round = collecting.get(message.id);
      if (!round) return;
      if (message.metrics) round.got.push(message.metrics);
      if (--round.expected === 0) round.finish();
      return;
    }
    if (message?.type !== ASK_PRIMARY) return;
    const asker = worker;
    const id = next++;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected());
    const round = { expected: workers.length, got: [] as unknown[][], finish: () => {} };
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, WORKER_ANSWER_MS);
      round.finish = () => {
        clearTimeout(timer);
        resolve();
      };
      collecting.set(id, round);
      for (const w of workers) w!.send({ type: ASK_WORKER, id });
      if (workers.length === 0) round.finish();
    })
      .then(() => {
        collecting.delete(id);
        return aggregate(round.got);
      })
      .then(
        (exposition) => asker.isConnected() && asker.send({ type: PRIMARY_ANSWER, id: message.id, ...exposition }),
        (error: unknown) => asker.isConnected() && asker.send({ type: PRIMARY_ANSWER, id: message.id, error: String(error) }),
      );
  });
}
