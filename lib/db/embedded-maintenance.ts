import { log } from "@/lib/log";

/** The first pass a minute after the database opens (start-up stays fast), then every ten minutes. */
const FIRST_MS = 60_000;
const EVERY_MS = 10 * 60_000;

/**
 * The embedded database (PGlite) runs no autovacuum: dead row versions pile up and the planner has no
 * statistics, so it guesses how selective a condition is and combines indexes it should not (a
 * settlement once read every charge of the history: docs/BENCHMARKS.md). `VACUUM (ANALYZE)` on a
 * timer stands in for it. It waits for an open transaction (one connection) and holds the other
 * statements while it runs: about 0.1 s on a new database, 0.2 s at 50,000 charges. Returns the
 * stop function, which waits for a pass in progress.
 */
export function maintainEmbeddedDatabase(exec: (sql: string) => Promise<void>): () => Promise<void> {
  let current: Promise<void> | null = null;
  const pass = () => {
    if (current) return;
    const started = Date.now();
    current = exec("VACUUM (ANALYZE)")
      .then(() => log.debug("embedded database vacuumed and analyzed", { ms: Date.now() - started }))
      .catch((error: unknown) => log.warn("embedded database maintenance failed", { error }))
      .finally(() => {
        current = null;
      });
  };
  let interval: NodeJS.Timeout | null = null;
  const first = setTimeout(() => {
    pass();
    interval = setInterval(pass, EVERY_MS);
    interval.unref();
  }, FIRST_MS);
  first.unref();
  return async () => {
    clearTimeout(first);
    if (interval) clearInterval(interval);
    await current;
  };
}
