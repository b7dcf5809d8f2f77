// npm test: runs each named vitest project in turn, every one of them whatever the others did, then
// prints one line per suite and exits 1 if any failed. (Chained with &&, a failing unit suite would
// hide the e2e suite's result.) Extra arguments after `--` go to every vitest run.
//   node scripts/run-suites.mjs unit e2e [-- <vitest args>]
import { spawnSync } from "node:child_process";
import path from "node:path";

// vitest's own command (its package exports no subpath for it): node_modules/vitest/vitest.mjs.
const vitest = path.join(process.cwd(), "node_modules", "vitest", "vitest.mjs");
const split = process.argv.indexOf("--");
const suites = process.argv.slice(2, split < 0 ? undefined : split);
const extra = split < 0 ? [] : process.argv.slice(split + 1);
if (suites.length === 0) {
  console.error("usage: node scripts/run-suites.mjs <project> [<project> ...] [-- <vitest args>]");
  process.exit(2);
}

const results = [];
for (const suite of suites) {
  const started = Date.now();
  const run = spawnSync(process.execPath, [vitest, "run", "--project", suite, ...extra], { stdio: "inherit" });
  results.push({ suite, code: run.status ?? 1, signal: run.signal, seconds: Math.round((Date.now() - started) / 1000) });
}

console.log("\nSuites:");
for (const r of results) {
  console.log(`  ${r.code === 0 ? "passed" : "FAILED"}  ${r.suite} (${r.seconds} s)${r.signal ? ` killed by ${r.signal}` : ""}`);
}
const failed = results.filter((r) => r.code !== 0);
if (failed.length > 0) {
  console.log(
    `\n${failed.length} of ${results.length} suites failed: ${failed.map((r) => r.suite).join(", ")} (each suite's failures are listed above it)`,
  );
  process.exit(1);
}
console.log(`\nAll ${results.length} suites passed.`);
