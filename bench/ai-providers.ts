/**
 * npm run bench:ai:providers (bench/ai-providers.ts; also run by npm run bench:ai): what each way of
 * calling a vendor costs per call, and what the routing layer adds, in this process at concurrency 1
 * against local stubs of each vendor's wire format (each its own process), interleaved call by call
 * after warm-ups. Writes the "AI providers and routing" section of docs/BENCHMARKS.md.
 *   Anthropic: the vendor SDK (@anthropic-ai/sdk, our adapter) vs the Vercel AI SDK (ai + @ai-sdk/anthropic)
 *              vs a bare fetch of the same request (the floor)
 *   Gemini:    the vendor SDK (@google/genai, our adapter) vs the Vercel AI SDK (@ai-sdk/google) vs fetch
 *   Routing:   the router (one OpenAI route, what every AI feature calls) vs the OpenAI adapter called directly
 * Settings: BENCH_N (1000 per kind), BENCH_WARMUP (300), BENCH_NO_DOC=true.
 */
import path from "node:path";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText } from "ai";
import { startHelper } from "./lib/ai-server";
import { median, percentile } from "./lib/ai-http";
import { fmt, writeSection } from "./lib/report";

const N = Number(process.env.BENCH_N ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);
const PROMPT = "Say hello to the benchmark";

type Kind = () => Promise<unknown>;

async function interleave(kinds: Record<string, Kind>): Promise<Record<string, { p50: number; p99: number }>> {
  const names = Object.keys(kinds);
  for (let i = 0; i < WARMUP; i++) for (const n of names) await kinds[n]();
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < N; i++) {
    for (const n of [...names.slice(i % names.length), ...names.slice(0, i % names.length)]) {
      const t = performance.now();
      await kinds[n]();
      samples[n].push(performance.now() - t);
    }
  }
  return Object.fromEntries(names.map((n) => [n, { p50: median(samples[n]), p99: percentile(samples[n], 99) }]));
}

async function main(): Promise<void> {
  const anthropic = await startHelper<{ url: string }>("vendor-stub-process.ts", ["anthropic"]);
  const gemini = await startHelper<{ url: string }>("vendor-stub-process.ts", ["gemini"]);
  const openai = await startHelper<{ url: string }>("ai-stub-process.ts");
  try {
    Object.assign(process.env, {
      NODE_ENV: "production",
      APP_ENV: "test",
      LOG_LEVEL: "error",
      ANTHROPIC_API_KEY: "sk-ant-bench",
      ANTHROPIC_BASE_URL: anthropic.info.url,
      GEMINI_API_KEY: "gk-bench",
      GEMINI_BASE_URL: gemini.info.url,
      OPENAI_API_KEY: "sk-bench",
      OPENAI_BASE_URL: openai.info.url,
    });
    const { aiProvider } = await import("@/lib/ai/providers/provider");
    const { createOpenAiProvider } = await import("@/lib/ai/providers/provider-openai");
    const { aiSettings } = await import("@/lib/ai/settings");
    const messages = [{ role: "user" as const, content: PROMPT }];
    const router = aiProvider();
    const direct = createOpenAiProvider({ name: "openai", apiKey: "sk-bench", baseURL: openai.info.url, settings: aiSettings() });
    const vercelAnthropic = createAnthropic({ apiKey: "sk-ant-bench", baseURL: `${anthropic.info.url}/v1` });
    const vercelGoogle = createGoogleGenerativeAI({ apiKey: "gk-bench", baseURL: `${gemini.info.url}/v1beta` });
    const anthropicBody = JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 64, messages });
    const geminiBody = JSON.stringify({
      contents: [{ role: "user", parts: [{ text: PROMPT }] }],
      generationConfig: { maxOutputTokens: 64 },
    });

    console.log(`providers: ${WARMUP} warm-ups and ${N} interleaved calls per kind ...`);
    const vendors = await interleave({
      anthropicSdk: () => router.chat({ model: "claude-haiku-4-5", messages, maxTokens: 64 }),
      anthropicVercel: () =>
        generateText({ model: vercelAnthropic("claude-haiku-4-5"), prompt: PROMPT, maxOutputTokens: 64, maxRetries: 0 }),
      anthropicFetch: async () =>
        (
          await fetch(`${anthropic.info.url}/v1/messages`, {
            method: "POST",
            headers: { "x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json" },
            body: anthropicBody,
          })
        ).json(),
      geminiSdk: () => router.chat({ model: "gemini-2.5-flash", messages, maxTokens: 64 }),
      geminiVercel: () => generateText({ model: vercelGoogle("gemini-2.5-flash"), prompt: PROMPT, maxOutputTokens: 64, maxRetries: 0 }),
      geminiFetch: async () =>
        (
          await fetch(`${gemini.info.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
            method: "POST",
            headers: { "x-goog-api-key": "k", "content-type": "application/json" },
            body: geminiBody,
          })
        ).json(),
    });
    const routing = await interleave({
      router: () => router.chat({ model: "gpt-4o-mini", messages, maxTokens: 64 }),
      adapter: () => direct.chat({ model: "gpt-4o-mini", messages, maxTokens: 64 }),
    });
    const result = { at: new Date().toISOString(), N, WARMUP, vendors, routing };
    console.log(JSON.stringify(result, null, 2));
    if (process.env.BENCH_NO_DOC !== "true") writeSection(path.join("docs", "BENCHMARKS.md"), "AI providers and routing", report(result));
  } finally {
    await Promise.all([anthropic.stop(), gemini.stop(), openai.stop()]);
  }
}

function report(r: {
  at: string;
  N: number;
  WARMUP: number;
  vendors: Record<string, { p50: number; p99: number }>;
  routing: Record<string, { p50: number; p99: number }>;
}): string {
  const v = r.vendors;
  const row = (label: string, k: string, floor: string) =>
    `| ${label} | ${fmt(v[k].p50, 3)} | ${fmt(v[k].p99, 3)} | ${fmt(v[k].p50 - v[floor].p50, 3)} |`;
  return [
    `Measured ${r.at.slice(0, 10)} by \`npm run bench:ai:providers\` (also run by \`npm run bench:ai\`): one Node process calling local stubs of each vendor's wire format (each stub its own process), ${r.N} calls per kind interleaved call by call after ${r.WARMUP} warm-ups; ms per call at concurrency 1. "Over fetch" is the kind's p50 minus a bare \`fetch\` of the same request.`,
    "",
    "| Anthropic Messages API | p50 ms | p99 ms | over fetch |",
    "|---|---|---|---|",
    row("vendor SDK (@anthropic-ai/sdk, our adapter, through the router)", "anthropicSdk", "anthropicFetch"),
    row("Vercel AI SDK (ai + @ai-sdk/anthropic, generateText)", "anthropicVercel", "anthropicFetch"),
    row("fetch", "anthropicFetch", "anthropicFetch"),
    "",
    "| Gemini API | p50 ms | p99 ms | over fetch |",
    "|---|---|---|---|",
    row("vendor SDK (@google/genai, our adapter, through the router)", "geminiSdk", "geminiFetch"),
    row("Vercel AI SDK (ai + @ai-sdk/google, generateText)", "geminiVercel", "geminiFetch"),
    row("fetch", "geminiFetch", "geminiFetch"),
    "",
    `**Routing layer**: the router with one OpenAI route (what every AI feature calls) p50 ${fmt(r.routing.router.p50, 3)} ms against the OpenAI adapter called directly ${fmt(r.routing.adapter.p50, 3)} ms, the same run and stub: **${fmt(r.routing.router.p50 - r.routing.adapter.p50, 3)} ms** added (target at most 0.1).`,
  ].join("\n");
}

void main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
