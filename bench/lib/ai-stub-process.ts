/**
 * The OpenAI-compatible stub (tests/helpers/openai-stub.ts, record: false) as its own process for
 * bench/ai-gateway.ts, so the stub's work does not run on the load generator's event loop.
 * IPC: first message out = { url, port, keepAliveMs }; in { chunkDelayMs } -> sets it; in
 * { streams: true } -> the stream counters; in { resetStreams: true } -> zeroes them.
 *
 * Keep-alive: the test stub's server keeps idle connections 1 s and says so (`Keep-Alive: timeout=1`).
 * undici (the fetch under the openai SDK) subtracts its 2 s safety margin from that hint, gets <= 0 and
 * closes the connection after every response, so each upstream call would pay a new TCP connect that a
 * real provider connection (TLS, kept alive) does not. The bench raises the stub server's keep-alive
 * to BENCH_STUB_KEEPALIVE_MS (65 s; "0" keeps the stub's 1 s).
 */
import { startOpenAiStub } from "@/tests/helpers/openai-stub";

const KEEPALIVE_MS = Number(process.env.BENCH_STUB_KEEPALIVE_MS ?? 65_000);
/** BENCH_STUB_REPLY_WORDS: answer every chat with that many words instead of echoing the prompt. */
const REPLY_WORDS = Number(process.env.BENCH_STUB_REPLY_WORDS ?? 0);

async function main(): Promise<void> {
  const keepAliveMs = KEEPALIVE_MS > 0 ? KEEPALIVE_MS : 1000;
  const stub = await startOpenAiStub({ record: false, keepAliveMs, ...(REPLY_WORDS > 0 ? { replyWords: REPLY_WORDS } : {}) });
  const send = (m: unknown) => process.send?.(m);
  process.on("message", (m: Record<string, unknown>) => {
    if (typeof m.chunkDelayMs === "number") {
      stub.chunkDelayMs = m.chunkDelayMs;
      send({ ok: true });
    } else if (m.resetStreams) {
      stub.streams = { opened: 0, completed: 0, clientClosed: 0, active: stub.streams.active };
      send({ ok: true });
    } else if (m.streams) {
      send({ ...stub.streams });
    } else send({ error: "unknown message" });
  });
  process.on("SIGTERM", () => void stub.close().then(() => process.exit(0)));
  process.on("disconnect", () => void stub.close().then(() => process.exit(0)));
  send({ url: stub.url, port: stub.port, keepAliveMs });
}

void main();
