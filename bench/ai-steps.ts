/**
 * npx tsx bench/ai-steps.ts — where the time of one POST /api/ai/chat goes: each step of the gateway
 * timed on its own, in this process, at concurrency 1, against a fresh PostgreSQL database
 * (TEST_DATABASE_URL) and the OpenAI-compatible stub (its own process). Steps are interleaved
 * request by request (rotating order), BENCH_N (300) samples each after 50 warm-ups; prints p50 / p99.
 * A diagnostic for the "AI gateway" section of docs/BENCHMARKS.md (it writes nothing; bench/ai-gateway.ts
 * runs it and reads the last line, `STEPS_JSON {"step": {p50, p99}, ...}`).
 *   session       getSessionUser (the session JWT of the cookie)
 *   flags         flags() (the feature flags the route checks first)
 *   body          the chat body read from a Request and validated (chatRequestSchema)
 *   reserve       reserveCredits from subscription credits
 *   reserveBonus  reserveCredits of a user with 0 subscription credits (bonus credits, auto-use on)
 *   settle        settleReservation of a fresh reservation
 *   provider      the provider's chat() to the stub (what the route calls)
 *   direct        the same completion POSTed to the stub with node:http (the bench's "direct")
 *   response      Response.json of an answer, read back (what the route returns)
 * BENCH_STEPS_DB=embedded runs on an in-memory PGlite instead of PostgreSQL.
 */
import { encode } from "next-auth/jwt";
import { freshPostgres, startHelper } from "./lib/ai-server";
import { keepAliveAgent, percentile, timedPost } from "./lib/ai-http";
import { fmt } from "./lib/report";

const N = Number(process.env.BENCH_N ?? 300);
const SECRET = "ai-steps-secret-0123456789abcdef0123456789";

async function main(): Promise<void> {
  const embedded = process.env.BENCH_STEPS_DB === "embedded";
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin && !embedded) throw new Error('TEST_DATABASE_URL is not set (eval "$(scripts/test-services.sh env)")');
  const stub = await startHelper<{ url: string; port: number }>("ai-stub-process.ts");
  const database = embedded ? null : await freshPostgres(admin as string, "bench_steps");
  try {
    Object.assign(process.env, {
      ...(database
        ? { DATABASE_URL: database.url }
        : {
            PGLITE_DATA_DIR: "memory://",
            DATA_DIR: "/tmp/bench-steps-data",
            APP_ENV: "production",
            ALLOW_EMBEDDED_DATABASE: "true",
            CRON_SECRET: "x".repeat(32),
          }),
      NEXTAUTH_SECRET: SECRET,
      OPENAI_API_KEY: "x",
      OPENAI_BASE_URL: stub.info.url,
      LOG_LEVEL: "error",
      PRICING_CONFIG: JSON.stringify({ tiers: { free: { monthlyCredits: 100_000_000 } } }),
    });
    const { getSessionUser } = await import("@/lib/auth/session");
    const { flags } = await import("@/lib/config/flags");
    const { chatRequestSchema } = await import("@/lib/ai/schemas");
    const { adjustCredits, reserveCredits, settleReservation } = await import("@/lib/credits");
    const { ensureUser } = await import("@/lib/users/ensure-user");
    const { aiProvider } = await import("@/lib/ai/providers/provider");
    const { closeDb, db } = await import("@/lib/db/client");
    const { user } = await ensureUser({ email: "steps@example.com" });
    const userId = user.id;
    // The bonus user: every credit in a bonus purchase, auto-use on.
    const bonusUser = (await ensureUser({ email: "steps-bonus@example.com" })).user.id;
    const prisma = await db();
    await prisma.$transaction(async (tx) => {
      await adjustCredits(tx, {
        userId: bonusUser,
        amount: -100_000_000,
        bucket: "subscription",
        idempotencyKey: "steps-sub",
        metadata: {},
      });
      await adjustCredits(tx, { userId: bonusUser, amount: 100_000_000, bucket: "bonus", idempotencyKey: "steps-bonus", metadata: {} });
    });
    await prisma.user.update({ where: { id: bonusUser }, data: { bonusCreditsAutoUse: true } });
    const chatJson = JSON.stringify({ messages: [{ role: "user", content: "Say hello to the benchmark" }] });
    const answer = {
      text: "stub reply to: Say hello to the benchmark",
      model: "gpt-4o-mini",
      usage: { promptTokens: 8, completionTokens: 9 },
      cost: 15,
    };
    const token = await encode({ token: { sub: userId, email: "steps@example.com" }, secret: SECRET });
    const req = new Request("http://127.0.0.1/api/ai/chat", { method: "POST", headers: { cookie: `next-auth.session-token=${token}` } });
    const provider = aiProvider();
    const agent = keepAliveAgent(1);
    const messages = [{ role: "user" as const, content: "Say hello to the benchmark" }];
    const directBody = JSON.stringify({ model: "gpt-4o-mini", messages });

    const steps: Record<string, () => Promise<unknown>> = {
      session: async () => {
        if (!(await getSessionUser(req))) throw new Error("session not recognised");
      },
      flags: async () => flags().aiChat,
      body: async () => {
        const r = new Request("http://127.0.0.1/api/ai/chat", {
          method: "POST",
          body: chatJson,
          headers: { "content-type": "application/json" },
        });
        const parsed = chatRequestSchema.safeParse(JSON.parse(await r.text()));
        if (!parsed.success) throw new Error("body refused");
      },
      reserve: () => reserveCredits({ userId, amount: 15, operation: "chat", metadata: { model: "gpt-4o-mini", provider: "openai" } }),
      reserveBonus: () =>
        reserveCredits({ userId: bonusUser, amount: 15, operation: "chat", metadata: { model: "gpt-4o-mini", provider: "openai" } }),
      settle: async () => {
        const r = await reserveCredits({ userId, amount: 15, operation: "chat", metadata: { model: "gpt-4o-mini", provider: "openai" } });
        const t = performance.now();
        await settleReservation(r, { amount: 15, costMicros: 6, metadata: { model: "gpt-4o-mini", promptTokens: 5, completionTokens: 9 } });
        return performance.now() - t;
      },
      provider: () => provider.chat({ model: "gpt-4o-mini", messages }),
      direct: () => timedPost(agent, `${stub.info.url}/chat/completions`, { authorization: "Bearer x" }, directBody),
      response: () => Response.json(answer).text(),
    };
    const names = Object.keys(steps);
    const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
    const time = async (name: string) => {
      const t = performance.now();
      const inner = await steps[name]();
      return typeof inner === "number" ? inner : performance.now() - t;
    };
    for (let i = 0; i < 50; i++) for (const n of names) await time(n);
    for (let i = 0; i < N; i++) {
      const order = [...names.slice(i % names.length), ...names.slice(0, i % names.length)];
      for (const n of order) samples[n].push(await time(n));
    }
    for (const n of names)
      console.log(`${n.padEnd(8)} p50 ${fmt(percentile(samples[n], 50), 2)} ms  p99 ${fmt(percentile(samples[n], 99), 2)} ms`);
    const summary = Object.fromEntries(
      names.map((n) => [n, { p50: percentile(samples[n], 50), p99: percentile(samples[n], 99), n: samples[n].length }]),
    );
    console.log(`STEPS_JSON ${JSON.stringify(summary)}`);
    agent.destroy();
    await closeDb();
  } finally {
    await database?.drop();
    await stub.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
