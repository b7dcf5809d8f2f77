/**
 * The pg suite runs against a real PostgreSQL: TEST_DATABASE_URL points at a server where we may
 * create databases. Each test file gets a fresh database (see tests/helpers/pg.ts).
 */
if (!process.env.TEST_DATABASE_URL) {
  throw new Error("TEST_DATABASE_URL is not set: the pg suite needs a PostgreSQL server (see .ci/run)");
}
