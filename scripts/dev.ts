/**
 * npm run dev: `next dev`, once the configuration is known to start. Next's development server prints
 * "Ready" before it loads next.config.ts or runs instrumentation.ts, so a refusal there came after a
 * "Ready" that was not true. Here the Node version (package.json runs scripts/node-version.cjs first)
 * and every setting (lib/server/check-configuration.ts, the .env files read as Next reads them in
 * development) are checked before Next starts: nothing says Ready unless it is. Arguments are passed on
 * (`npm run dev -- -p 4000`); so is the exit code, and a signal stops both.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { loadEnvConfig } from "@next/env";
import { configurationProblems, describeProblems } from "@/lib/server/check-configuration";

loadEnvConfig(process.cwd(), true, { info: () => {}, error: console.error });
const problems = configurationProblems(process.env);
if (problems.length > 0) {
  console.error(describeProblems(problems));
  process.exit(1);
}

const next = spawn(
  process.execPath,
  [path.join(process.cwd(), "node_modules", "next", "dist", "bin", "next"), "dev", ...process.argv.slice(2)],
  { stdio: "inherit" },
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => next.kill(signal));
next.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
