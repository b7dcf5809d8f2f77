import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { env, EnvError, parseEnv, settingNames } from "@/lib/config/env";
import { startServer } from "@/lib/server/start-server";
import { setEnv } from "@/tests/helpers/env";

afterEach(() => vi.restoreAllMocks());

function problemsOf(source: Record<string, string | undefined>): string[] {
  try {
    parseEnv(source);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as EnvError).problems;
  }
  throw new Error("expected an EnvError");
}

describe("env", () => {
  it("works with nothing set: embedded defaults, development mode, dev sign-in on", () => {
    const e = parseEnv({});
    expect(e).toMatchObject({
      appEnv: "development",
      isProduction: false,
      dataDir: ".data",
      devLoginEnabled: true,
      RATE_LIMIT_ENABLED: true,
      RATE_LIMIT_TIMEOUT_MS: 1000,
      PUBLIC_PRICING_MODEL: "credit_based",
      PUBLIC_AI_LLM_CHAT_ENABLED: true,
    });
    expect(e.DATABASE_URL).toBeUndefined();
  });

  it("derives production from NODE_ENV (as next start sets it); APP_ENV wins", () => {
    const base = {
      NODE_ENV: "production",
      PAYMENTS_ENABLED: "false",
      NEXTAUTH_SECRET: "s",
      CRON_SECRET: "c",
      ALLOW_EMBEDDED_DATABASE: "true",
    };
    expect(parseEnv(base)).toMatchObject({ appEnv: "production", isProduction: true, devLoginEnabled: false });
    expect(parseEnv({ ...base, AUTH_DEV_LOGIN: "true" }).devLoginEnabled).toBe(false);
    expect(parseEnv({ ...base, AUTH_DEV_LOGIN: "true", AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION: "true" }).devLoginEnabled).toBe(true);
    expect(parseEnv({ ...base, APP_ENV: "development" }).appEnv).toBe("development");
    expect(parseEnv({ AUTH_DEV_LOGIN: "false" }).devLoginEnabled).toBe(false);
  });

  it("lists every problem at once, each naming its setting, never echoing values", () => {
    const problems = problemsOf({
      DATABASE_URL: "mysql://root:topsecret@db/app",
      RATE_LIMIT_TIMEOUT_MS: "soon",
      PUBLIC_PRICING_MODEL: "freemium",
      PUBLIC_AI_RAG_CHAT_ENABLED: "maybe",
      NEXTAUTH_URL: "not a url",
      LOG_LEVEL: "loud",
    });
    expect(problems).toHaveLength(6);
    for (const name of [
      "DATABASE_URL",
      "RATE_LIMIT_TIMEOUT_MS",
      "PUBLIC_PRICING_MODEL",
      "PUBLIC_AI_RAG_CHAT_ENABLED",
      "NEXTAUTH_URL",
      "LOG_LEVEL",
    ]) {
      expect(problems.some((p) => p.startsWith(`${name}: `))).toBe(true);
    }
    expect(problems.join("\n")).not.toContain("topsecret");
    const error = new EnvError(problems);
    expect(error.message).toMatch(/^Invalid configuration:\n {2}- /);
    expect(error.message.split("\n")).toHaveLength(7);
  });

  it("checks settings that depend on each other, and production requirements", () => {
    expect(problemsOf({ APP_ENV: "production", PAYMENTS_ENABLED: "false", ALLOW_EMBEDDED_DATABASE: "true" })).toEqual([
      "NEXTAUTH_SECRET: required in production, a random secret of 32 characters or more (e.g. NEXTAUTH_SECRET=<openssl rand -hex 32>)",
      "CRON_SECRET: required in production, the bearer token of the cron endpoints (e.g. CRON_SECRET=<openssl rand -hex 32>)",
    ]);
    expect(
      problemsOf({
        APP_ENV: "production",
        PAYMENTS_ENABLED: "false",
        NEXTAUTH_SECRET: "s",
        CRON_SECRET: "c",
        RATE_LIMIT_ENABLED: "false",
        ALLOW_EMBEDDED_DATABASE: "true",
      }),
    ).toEqual(["RATE_LIMIT_ENABLED: cannot be false in production (the rate limits are mandatory there)"]);
    // Invalid values and missing requirements are reported together, in one attempt.
    expect(
      problemsOf({ APP_ENV: "production", PAYMENTS_ENABLED: "false", DATABASE_URL: "mysql://x", UPSTASH_REDIS_REST_URL: "nope" }),
    ).toEqual([
      "DATABASE_URL: must be a postgres:// or postgresql:// URL",
      "UPSTASH_REDIS_REST_URL: must be a URL",
      "NEXTAUTH_SECRET: required in production, a random secret of 32 characters or more (e.g. NEXTAUTH_SECRET=<openssl rand -hex 32>)",
      "CRON_SECRET: required in production, the bearer token of the cron endpoints (e.g. CRON_SECRET=<openssl rand -hex 32>)",
    ]);
    expect(problemsOf({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })).toEqual([
      "UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN: set both or neither",
    ]);
    expect(problemsOf({ LEMONSQUEEZY_API_KEY: "k", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "a" })).toEqual([
      "LEMONSQUEEZY_STORE_ID: required when LEMONSQUEEZY_API_KEY is set",
      "S3_REGION: required when S3_BUCKET is set",
      "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither",
    ]);
  });

  it("env() follows process.env changes (tests switch flags between cases)", () => {
    const restore = setEnv({ PUBLIC_AI_IMAGE_GEN_ENABLED: "false" });
    try {
      expect(env().PUBLIC_AI_IMAGE_GEN_ENABLED).toBe(false);
    } finally {
      restore();
    }
    expect(env().PUBLIC_AI_IMAGE_GEN_ENABLED).toBe(true);
  });

  it("declares the documented settings", () => {
    for (const name of ["DATABASE_URL", "DATA_DIR", "UPSTASH_REDIS_REST_URL", "RATE_LIMIT_ENABLED", "RAG_INDEX_ON_START", "BENCH_ROUTES"]) {
      expect(settingNames).toContain(name);
    }
  });
});

describe("empty values", () => {
  it("mean unset for every kind of setting, so the unedited .env.example is a valid configuration", () => {
    const example: Record<string, string> = {};
    for (const line of readFileSync(".env.example", "utf8").split("\n")) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m) example[m[1]] = m[2];
    }
    expect(example.APP_ENV).toBe("");
    expect(example.LOG_LEVEL).toBe("");
    const e = parseEnv({ ...example, NODE_ENV: "development" });
    expect(e).toMatchObject({ appEnv: "development", dataDir: ".data", devLoginEnabled: true, PUBLIC_PRICING_MODEL: "credit_based" });
    expect(e.LOG_LEVEL).toBeUndefined();
    expect(parseEnv({ APP_ENV: " ", AUTH_DEV_LOGIN: "", PUBLIC_PRICING_MODEL: "", NODE_ENV: "" }).appEnv).toBe("development");
    expect(problemsOf({ APP_ENV: "staging" })[0]).toMatch(/^APP_ENV: /);
  });
});

describe("production guardrails", () => {
  it("refuse the embedded database unless ALLOW_EMBEDDED_DATABASE=true, naming every missing setting at once", () => {
    const problems = problemsOf({ NODE_ENV: "production", PAYMENTS_ENABLED: "false" });
    expect(problems.map((p) => p.split(":")[0])).toEqual(["NEXTAUTH_SECRET", "CRON_SECRET", "DATABASE_URL"]);
    const base = { NODE_ENV: "production", PAYMENTS_ENABLED: "false", NEXTAUTH_SECRET: "s", CRON_SECRET: "c" };
    expect(parseEnv({ ...base, ALLOW_EMBEDDED_DATABASE: "true" }).isProduction).toBe(true);
    expect(parseEnv({ ...base, DATABASE_URL: "postgresql://u@127.0.0.1/db" }).isProduction).toBe(true);
  });
});

describe("server start-up", () => {
  it("prints the readable list of problems and exits 1 on an invalid environment", async () => {
    const printed: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void printed.push(String(line)));
    const exit = vi.fn(() => undefined as never);
    const restore = setEnv({ DATABASE_URL: "mysql://x", PUBLIC_PRICING_MODEL: "nope" });
    try {
      await startServer({ exit });
    } finally {
      restore();
    }
    expect(exit).toHaveBeenCalledWith(1);
    expect(printed.join("\n")).toMatch(/Invalid configuration:\n {2}- DATABASE_URL: .+\n {2}- PUBLIC_PRICING_MODEL: /);
  });
});
