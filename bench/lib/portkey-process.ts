import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

/**
 * The Portkey AI gateway (npm @portkey-ai/gateway, a development dependency of the benchmarks only)
 * as its own process on 127.0.0.1, for bench/ai-gateway.ts to put side by side with ours in front of
 * the same OpenAI stub. Its server listens on all interfaces by default; loopback-only.mjs pins it to
 * 127.0.0.1. A request reaches the stub through it with `x-portkey-provider: openai` and
 * `x-portkey-custom-host: <stub>/v1` (its documented way to proxy an OpenAI-compatible server).
 * portkey-node-streams.mjs works around its streams failing on Node (see there).
 */
export interface PortkeyProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export async function startPortkey(): Promise<PortkeyProcess> {
  const port = await freePort();
  const root = process.cwd();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--import",
      path.join(root, "bench", "lib", "loopback-only.mjs"),
      "--import",
      path.join(root, "bench", "lib", "portkey-node-streams.mjs"),
      path.join(root, "node_modules", "@portkey-ai", "gateway", "build", "start-server.js"),
      `--port=${port}`,
      "--headless",
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", HOME: process.env.HOME ?? "/tmp" },
    },
  );
  let output = "";
  child.stdout?.on("data", (d) => (output += String(d)));
  child.stderr?.on("data", (d) => (output += String(d)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Portkey exited with ${child.exitCode}: ${output.slice(-2000)}`);
    try {
      const res = await fetch(`${url}/`);
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`Portkey did not start: ${output.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid as number, "SIGTERM");
      const timer = setTimeout(() => child.exitCode === null && process.kill(child.pid as number, "SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The headers that route a request through Portkey to an OpenAI-compatible server at `stubUrl` (…/v1). */
export function portkeyHeaders(stubUrl: string): Record<string, string> {
  return { "x-portkey-provider": "openai", "x-portkey-custom-host": stubUrl, authorization: "Bearer x" };
}
