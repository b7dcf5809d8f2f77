import { describe, expect, it } from "vitest";
import { configurationProblems } from "@/lib/server/check-configuration";
import { MAX_EXITS_PER_MINUTE, serverProcessCount, tooManyExits } from "@/lib/server/server-processes";

describe("WEB_CONCURRENCY", () => {
  it("asks for N processes on PostgreSQL; one when unset, 1, or on the embedded database (and says why)", () => {
    const pg = { DATABASE_URL: "postgresql://app@db/app" };
    expect(serverProcessCount({ ...pg, WEB_CONCURRENCY: "4" })).toEqual({ count: 4 });
    expect(serverProcessCount({ ...pg })).toEqual({ count: 1 });
    expect(serverProcessCount({ ...pg, WEB_CONCURRENCY: "1" })).toEqual({ count: 1 });
    const embedded = serverProcessCount({ WEB_CONCURRENCY: "2" });
    expect(embedded.count).toBe(1);
    expect(embedded.ignored).toMatch(/embedded database/);
  });

  it("is checked with the rest of the configuration: a whole number of at least 1", () => {
    for (const bad of ["0", "-2", "1.5", "two"]) {
      const problems = configurationProblems({ NODE_ENV: "development", WEB_CONCURRENCY: bad });
      expect(problems.join("\n"), bad).toMatch(/WEB_CONCURRENCY/);
    }
    expect(configurationProblems({ NODE_ENV: "development", WEB_CONCURRENCY: "3" }).filter((p) => p.includes("WEB_CONCURRENCY"))).toEqual(
      [],
    );
  });

  it(`gives up after more than ${MAX_EXITS_PER_MINUTE} exits within a minute, not on exits spread wider`, () => {
    const exits: number[] = [];
    const t0 = 1_000_000;
    for (let i = 0; i < MAX_EXITS_PER_MINUTE; i++) expect(tooManyExits(exits, t0 + i * 1000)).toBe(false);
    expect(tooManyExits(exits, t0 + 10_000)).toBe(true);
    const spread: number[] = [];
    for (let i = 0; i < 20; i++) expect(tooManyExits(spread, t0 + i * 15_000)).toBe(false);
  });
});
