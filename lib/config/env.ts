import { crossChecks } from "./env-rules";
import { envSchema as schema, type AppEnv, type Env, type RawEnv } from "./env-schema";

export type { AppEnv, Env, RawEnv } from "./env-schema";
export { signInMethods } from "./env-rules";

/**
 * The one place that reads process.env: every setting of .env.example (lib/config/env-schema.ts),
 * validated by zod, with the rules between settings (lib/config/env-rules.ts), and reported all at
 * once (names and problems, never values) when something is wrong. Edge-safe: no Node APIs.
 */
export class EnvError extends Error {
  /** `invalid`: the settings whose own value is wrong (the other checks leave them out). */
  constructor(
    readonly problems: string[],
    readonly invalid: string[] = [],
  ) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "EnvError";
  }
}

/**
 * Parses an environment; throws EnvError listing every problem. `requirements: false` checks values
 * only, not what a running server needs (the migration command needs a database, not the secrets).
 */
export function parseEnv(source: Record<string, string | undefined>, options: { requirements?: boolean } = {}): Env {
  const requirements = options.requirements ?? true;
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    // Also report what the other settings lack (production requirements, pairs), so one start-up
    // attempt lists every problem: re-check without the invalid settings, skipping checks about them.
    const invalid = new Set(result.error.issues.map((i) => String(i.path[0])));
    const rest = Object.fromEntries(Object.entries(source).filter(([k]) => !invalid.has(k)));
    const retry = schema.safeParse(rest);
    if (retry.success && requirements) {
      for (const problem of crossChecks(withDerived(retry.data))) {
        if (![...invalid].some((name) => problem.includes(name))) problems.push(problem);
      }
    }
    throw new EnvError(problems, [...invalid]);
  }
  const env = withDerived(result.data);
  const problems = requirements ? crossChecks(env) : [];
  if (problems.length > 0) throw new EnvError(problems);
  return env;
}

function withDerived(raw: RawEnv): Env {
  const appEnv: AppEnv = raw.APP_ENV ?? (raw.NODE_ENV === "production" ? "production" : raw.NODE_ENV === "test" ? "test" : "development");
  const isProduction = appEnv === "production";
  return {
    ...raw,
    appEnv,
    isProduction,
    // Production keeps its embedded data apart from development's (.data holds dev sign-in accounts).
    dataDir: raw.DATA_DIR ?? (isProduction ? ".data-production" : ".data"),
    // In production only with both switches: anyone may then sign in as any email address.
    devLoginEnabled: isProduction
      ? raw.AUTH_DEV_LOGIN === "true" && raw.AUTH_DEV_LOGIN_UNSAFE_IN_PRODUCTION
      : raw.AUTH_DEV_LOGIN !== "false",
  };
}

let cached: { key: string; env: Env } | undefined;
let checking: Env | undefined;

/**
 * Runs the start-up checks that need a parsed environment on what is valid of `source`: the settings
 * in `invalid` left out and the cross-setting requirements not enforced (they were reported already),
 * so the checks report their own problems in the same list. [] when even that does not parse.
 */
export function withEnvForChecks<T>(source: Record<string, string | undefined>, invalid: string[], check: (e: Env) => T[]): T[] {
  let lenient: Env;
  try {
    lenient = parseEnv(Object.fromEntries(Object.entries(source).filter(([k]) => !invalid.includes(k))), { requirements: false });
  } catch {
    return [];
  }
  checking = lenient;
  try {
    return check(lenient);
  } finally {
    checking = undefined;
  }
}

/**
 * The validated environment. A production server's environment is fixed when the process starts, so
 * it is parsed once; elsewhere (tests switch flags between cases, `next dev` reloads .env files) it is
 * re-parsed whenever process.env changed, which costs a fingerprint of every setting per call.
 */
export function env(): Env {
  if (checking) return checking;
  if (cached && process.env.NODE_ENV === "production") return cached.env;
  const key = fingerprint();
  if (cached?.key === key) return cached.env;
  const parsed = parseEnv(process.env);
  cached = { key, env: parsed };
  return parsed;
}

function fingerprint(): string {
  let key = "";
  for (const name of Object.keys(schema.shape)) key += `${process.env[name] ?? "\u0000"}\u0001`;
  return key;
}

/**
 * A value computed from the environment, recomputed only when env() changed (same object = same
 * settings): the hot path reads flags and settings without rebuilding them per request.
 */
export function fromEnv<T>(compute: (e: Env) => T): () => T {
  let last: { env: Env; value: T } | undefined;
  return () => {
    const e = env();
    if (last?.env !== e) last = { env: e, value: compute(e) };
    return last.value;
  };
}

/** Names of every setting, for docs and the .env.example completeness test. */
export const settingNames = Object.keys(schema.shape);
