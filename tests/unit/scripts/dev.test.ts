import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * npm run dev (scripts/node-version.cjs, then scripts/dev.ts, then next dev): a Node that is too old
 * and a configuration that cannot start are refused before Next prints "Ready" (Next says Ready before
 * it loads next.config.ts or instrumentation.ts); a good one starts.
 */
const scratch = mkdtempSync(path.join(tmpdir(), "dev-script-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: "1" };

function devRefused(env: Record<string, string | undefined>) {
  const run = spawnSync("npm", ["run", "--silent", "dev"], {
    env: { ...baseEnv, ...env } as unknown as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("npm run dev", () => {
  it("refuses Node 20 in one line, without saying Ready", () => {
    const fake = path.join(scratch, "node20.cjs");
    writeFileSync(fake, 'Object.defineProperty(process.versions, "node", { value: "20.19.0" });\n');
    const { status, output } = devRefused({ NODE_OPTIONS: `--require ${fake}` });
    expect(status).toBe(1);
    expect(output).toMatch(/This app needs Node\.js 22\.13 or newer, and this is Node\.js 20\.19\.0/);
    expect(output).not.toMatch(/Ready/);
  }, 90_000);

  it("refuses settings that cannot start, listing them, without saying Ready", () => {
    const { status, output } = devRefused({ APP_ENV: "production", DATA_DIR: path.join(scratch, "data") });
    expect(status).toBe(1);
    expect(output).toContain("Invalid configuration:");
    expect(output).toContain("NEXTAUTH_SECRET: required in production");
    expect(output).not.toMatch(/Ready/);
  }, 90_000);

  it("starts next dev when all is well (Ready, on the port asked for)", async () => {
    const child = spawn("npm", ["run", "--silent", "dev", "--", "-p", "0"], {
      env: { ...baseEnv, DATA_DIR: path.join(scratch, "ok"), NEXT_DIST_DIR: ".next-dev-script-test" } as unknown as NodeJS.ProcessEnv,
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    try {
      const deadline = Date.now() + 60_000;
      while (!/Ready in/.test(output) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(output).toMatch(/Ready in/);
    } finally {
      if (child.pid) process.kill(-child.pid, "SIGTERM");
      await new Promise((r) => child.once("exit", r));
      rmSync(path.join(process.cwd(), ".next-dev-script-test"), { recursive: true, force: true });
    }
  }, 90_000);
});
