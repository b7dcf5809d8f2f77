import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** npm test's runner (scripts/run-suites.mjs): a failing suite never hides the next one's result. */
describe("scripts/run-suites.mjs", () => {
  it("runs every suite after a failing one, lists each, and exits 1", () => {
    const config = path.join("tests", "unit", "scripts", "fixtures", "run-suites", "vitest.config.ts");
    const run = spawnSync(process.execPath, ["scripts/run-suites.mjs", "first", "second", "--", "--config", config], {
      encoding: "utf8",
      timeout: 120_000,
    });
    const out = `${run.stdout}${run.stderr}`;
    expect(run.status, out).toBe(1);
    expect(out).toMatch(/FAILED\s+first/);
    expect(out).toMatch(/passed\s+second/);
    expect(out).toContain("1 of 2 suites failed: first");
  }, 150_000);
});
