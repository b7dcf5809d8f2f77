import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseEnv, settingNames } from "@/lib/config/env";

/**
 * compose.yaml, checked without a container engine (its images cannot be pulled on the CI machines;
 * scripts/container-check.sh proves the app's image itself): the app's settings are real settings,
 * form a valid production configuration once the two required secrets are set, and point at the
 * services compose starts with the credentials those services are given.
 */
type Service = {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
};
const compose = parse(readFileSync("compose.yaml", "utf8"), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

/** Compose's interpolation: ${NAME}, ${NAME:-default}, ${NAME:?message} and $$, from `vars` only. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(
    /\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g,
    (whole, name: string | undefined, kind: string | undefined, rest: string | undefined) => {
      if (whole === "$$") return "$";
      const set = vars[name!];
      if (set) return set;
      if (kind === "-") return rest ?? "";
      if (kind === "?") throw new Error(`${name} is required: ${rest}`);
      return "";
    },
  );
}

const resolved = (service: string, vars: Record<string, string>) =>
  Object.fromEntries(Object.entries(services[service].environment ?? {}).map(([k, v]) => [k, interpolate(String(v), vars)]));

const SECRETS = { NEXTAUTH_SECRET: "a-production-secret-0123456789abcdef", CRON_SECRET: "a-cron-secret-0123456789" };

describe("compose.yaml", () => {
  it("refuses to start the app without NEXTAUTH_SECRET and CRON_SECRET, naming them", () => {
    expect(() => resolved("app", {})).toThrow(/NEXTAUTH_SECRET|CRON_SECRET/);
    expect(() => resolved("app", { NEXTAUTH_SECRET: "x" })).toThrow(/CRON_SECRET/);
  });

  it("gives the app only settings the server reads, and a valid production configuration", () => {
    const appEnv = resolved("app", SECRETS);
    const known = new Set(settingNames);
    expect(Object.keys(appEnv).filter((k) => !known.has(k))).toEqual([]);
    // As the image runs it: NODE_ENV=production (Dockerfile), these settings, nothing else.
    expect(() => parseEnv({ NODE_ENV: "production", ...appEnv })).not.toThrow();
    expect(resolved("migrate", SECRETS).DATABASE_URL).toBe(appEnv.DATABASE_URL);
  });

  it("migrates once by the explicit command before the app starts, never inside the app", () => {
    expect(services.migrate.command).toEqual(["node", "scripts/db-migrate.mjs"]);
    expect(services.app.command).toBeUndefined();
    expect(services.app.depends_on?.migrate).toEqual({ condition: "service_completed_successfully" });
    expect(services.migrate.depends_on?.postgres).toEqual({ condition: "service_healthy" });
  });

  it("points the app at the services it starts, with their credentials", () => {
    const app = resolved("app", SECRETS);
    const postgres = resolved("postgres", SECRETS);
    const db = new URL(app.DATABASE_URL);
    expect(services.postgres.image).toMatch(/pgvector/);
    expect([db.hostname, db.port, db.username, db.password, db.pathname.slice(1)]).toEqual([
      "postgres",
      "5432",
      postgres.POSTGRES_USER,
      postgres.POSTGRES_PASSWORD,
      postgres.POSTGRES_DB,
    ]);

    const redisHttp = resolved("redis-http", SECRETS);
    expect(new URL(app.UPSTASH_REDIS_REST_URL).hostname).toBe("redis-http");
    expect(app.UPSTASH_REDIS_REST_TOKEN).toBe(redisHttp.SRH_TOKEN);
    expect(new URL(redisHttp.SRH_CONNECTION_STRING).hostname).toBe("redis");

    const minio = resolved("minio", SECRETS);
    expect(new URL(app.S3_ENDPOINT).hostname).toBe("minio");
    expect([app.S3_ACCESS_KEY_ID, app.S3_SECRET_ACCESS_KEY]).toEqual([minio.MINIO_ROOT_USER, minio.MINIO_ROOT_PASSWORD]);
    const makeBucket = (services["minio-bucket"] as { entrypoint?: string[] }).entrypoint?.join(" ") ?? "";
    expect(makeBucket).toContain(`local/${app.S3_BUCKET}`);
    expect(services.app.depends_on?.["minio-bucket"]).toEqual({ condition: "service_completed_successfully" });
  });

  it("publishes ports on the loopback interface only", () => {
    const published = Object.values(services).flatMap((s) => s.ports ?? []);
    expect(published.length).toBeGreaterThan(0);
    for (const port of published) expect(port.startsWith("127.0.0.1:"), port).toBe(true);
  });
});
