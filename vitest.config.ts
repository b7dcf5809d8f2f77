import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(__dirname) };

/**
 * Suites:
 *   unit      pure units + integration (route handlers with real Requests on in-memory PGlite, local
 *             peers: s3rver, provider stubs over HTTP). Node only.           -> npm test
 *   e2e       `next build` + `next start` over HTTP on the embedded default.  -> npm test
 *   pg        real PostgreSQL (TEST_DATABASE_URL): concurrency, multi-instance -> npm run test:pg
 *   redis     real redis-server behind an Upstash REST emulator               -> npm run test:redis
 *   browser   playwright-core + Debian chromium against the standalone server -> npm run test:browser
 *   deploy    the standalone artifact in production on PostgreSQL, Redis, S3    -> npm run test:deploy
 *   instances three standalone servers on one PostgreSQL + Redis, behind a balancer (and PgBouncer) -> npm run test:instances
 */
export default defineConfig({
  resolve: { alias },
  test: {
    // Expected failures log errors by design (a refused webhook, a provider that fails): their lines
    // are shown only for a test that fails, where they explain it. VITEST_LOGS=all shows every line.
    silent: process.env.VITEST_LOGS === "all" ? false : "passed-only",
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts", "tests/rag-eval/**/*.test.ts"],
          setupFiles: ["tests/setup/env.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          globalSetup: ["tests/e2e/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "pg",
          include: ["tests/pg/**/*.test.ts"],
          setupFiles: ["tests/setup/env.ts", "tests/setup/pg.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "redis",
          include: ["tests/redis/**/*.test.ts"],
          setupFiles: ["tests/setup/env.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "deploy",
          include: ["tests/deploy/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "instances",
          include: ["tests/instances/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "browser",
          include: ["tests/browser/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
