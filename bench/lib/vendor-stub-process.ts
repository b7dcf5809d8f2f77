/**
 * The Anthropic or Gemini stub (tests/helpers/*-stub.ts) as its own process for the benchmarks, so
 * its work does not run on the load generator's event loop. Argument: anthropic | gemini.
 * IPC: first message out = { url }.
 */
import { startAnthropicStub } from "@/tests/helpers/anthropic-stub";
import { startGeminiStub } from "@/tests/helpers/gemini-stub";

async function main(): Promise<void> {
  const kind = process.argv[2];
  const stub = kind === "anthropic" ? await startAnthropicStub() : await startGeminiStub();
  const stop = () => void stub.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("disconnect", stop);
  process.send?.({ url: stub.url });
}

void main();
