import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docSnippets, promisedOutput, type DocSnippet } from "@/tests/helpers/doc-snippets";
import { startWebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { Client } from "./client";
import { removeDir, startServer, type RunningServer } from "./server";

/**
 * Every fenced code block of README.md and docs/*.md is run against a real server, or checked against
 * the project, here: a snippet cannot drift from the code it documents.
 *   - curl walks (bash with curl): run in order in one shell per file, as a reader pastes them, against
 *     a server started like the README's (the unedited .env.example, development); each `# {...}`
 *     comment's JSON must be in what the commands printed.
 *   - JavaScript and TypeScript: run by their title (hello.mjs; verify-webhook.ts against a real
 *     delivery of this server).
 *   - command lists (npm scripts, project scripts, docker, apt-get): every `npm run` script, project file
 *     and compose service they name exists; environment lines name settings of .env.example.
 *   - YAML and JSON: parsed; the metric names of the Prometheus examples are this server's.
 *   - A snippet run by another suite names it (`run-by="tests/pg/doc-backup.test.ts"`), which must
 *     find it by its title.
 *   - A snippet that cannot run here says why (`not-run="..."` in its info string).
 */
const ROOT = process.cwd();
const snippets = docSnippets(ROOT);
const where = (s: DocSnippet) => `${s.file}:${s.line}`;
const SCRATCH = path.join(ROOT, "node_modules", ".cache", "doc-snippets");
const ADMIN_TOKEN = "doc-snippets-admin-token-0123456789abcdef";

let server: RunningServer;
const checked = new Set<DocSnippet>();

function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}
const envExample = parseEnvFile(readFileSync(path.join(ROOT, ".env.example"), "utf8"));
/** Settings the snippets may name besides .env.example's: the OpenTelemetry SDK's own (docs/OBSERVABILITY.md). */
const SDK_SETTINGS = new Set(["OTEL_EXPORTER_OTLP_HEADERS"]);
const isSetting = (name: string) => Object.hasOwn(envExample, name) || SDK_SETTINGS.has(name);

beforeAll(async () => {
  const { DATA_DIR: _unused, ...example } = envExample;
  server = await startServer(
    { ...example, APP_ENV: "development", NEXTAUTH_URL: undefined, ADMIN_API_TOKEN: ADMIN_TOKEN },
    { dataDirPrefix: "svc-doc-snippets-" },
  );
  mkdirSync(SCRATCH, { recursive: true });
});

afterAll(async () => {
  await server?.stop();
  if (server) removeDir(server.dataDir);
  rmSync(SCRATCH, { recursive: true, force: true });
});

/** The snippet's code aimed at the test server instead of the documented address. */
const localised = (code: string) =>
  code.replaceAll("http://localhost:3000", server.baseUrl).replace(/\bB=https:\/\/your\.app\b/g, `B=${server.baseUrl}`);

/** Snippets this file runs or checks itself (not those another suite runs, or that cannot run). */
const ours = (s: DocSnippet) => !s.attrs["not-run"] && !s.attrs["run-by"];
const isCurlWalk = (s: DocSnippet) => s.lang === "bash" && /\bcurl\b/.test(s.code) && ours(s);

function bash(script: string, env: Record<string, string> = {}): { status: number | null; out: string } {
  const run = spawnSync("bash", ["-c", `set -euo pipefail\n${script}`], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe("documentation snippets", () => {
  it("finds the snippets (README's quick start among them)", () => {
    expect(snippets.length).toBeGreaterThan(15);
    expect(snippets.some((s) => s.file === "README.md" && s.attrs.title === "hello.mjs")).toBe(true);
  });

  it("runs each file's curl walk in order against the server, and its output is what the comments say", () => {
    const files = [...new Set(snippets.filter(isCurlWalk).map((s) => s.file))];
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/ADMIN.md"]));
    for (const file of files) {
      const walk = snippets.filter((s) => s.file === file && isCurlWalk(s));
      // The operator walk looks up a customer, who signs in first as the README shows.
      if (file === "docs/ADMIN.md") {
        const setup = bash(readmeSignIn("customer@example.com"));
        expect(setup.status, setup.out).toBe(0);
      }
      const script = walk.map((s) => localised(s.code)).join("\n");
      const { status, out } = bash(script, { ADMIN_API_TOKEN: ADMIN_TOKEN });
      expect(status, `${file}'s walk failed:\n${out}`).toBe(0);
      for (const s of walk) {
        for (const piece of promisedOutput(s.code)) expect(out, `${where(s)}: the output lacks ${piece}`).toContain(piece);
        checked.add(s);
      }
    }
  });

  it("runs README's hello.mjs with the OpenAI SDK and a key made on the server", async () => {
    const s = snippets.find((x) => x.attrs.title === "hello.mjs")!;
    const client = new Client(server.baseUrl);
    await client.signIn("hello-mjs@example.com");
    const key = await client.json<{ secret: string }>("/api/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "hello" }),
    });
    expect(key.status).toBe(200);
    const file = path.join(SCRATCH, "hello.mjs");
    writeFileSync(file, localised(s.code));
    const run = spawnSync(process.execPath, [file], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, API_KEY: key.body.secret },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().length).toBeGreaterThan(0);
    checked.add(s);
  });

  it("verify-webhook.ts verifies a real delivery of this server and refuses a tampered one", async () => {
    const s = snippets.find((x) => x.attrs.title === "verify-webhook.ts")!;
    expect(s, "API-NOTES.md's verification snippet").toBeTruthy();
    const receiver = await startWebhookReceiver();
    try {
      const client = new Client(server.baseUrl);
      await client.signIn("verify-snippet@example.com");
      const created = await client.json<{ endpoint: { id: string }; secret: string }>("/api/webhook-endpoints", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: receiver.url, events: ["credits.low"] }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect((await client.fetch(`/api/webhook-endpoints/${created.body.endpoint.id}/test`, { method: "POST" })).status).toBe(200);
      const deadline = Date.now() + 20_000;
      while (receiver.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const delivery = receiver.received[0];
      expect(delivery, "the test event reached the receiver").toBeTruthy();

      const file = path.join(SCRATCH, "verify-webhook.ts");
      writeFileSync(file, s.code);
      process.env.WEBHOOK_SECRET = created.body.secret;
      const { verifyEvent } = (await import(/* @vite-ignore */ file)) as {
        verifyEvent: (raw: string, headers: Record<string, string>) => { type: string; id: string };
      };
      const event = verifyEvent(delivery.body, delivery.headers);
      expect(event.type).toBe("webhook.test");
      expect(event.id).toBe(delivery.headers["webhook-id"]);
      expect(() => verifyEvent(delivery.body.replace("webhook.test", "webhook.fake"), delivery.headers)).toThrow();
      checked.add(s);
    } finally {
      delete process.env.WEBHOOK_SECRET;
      await receiver.close();
    }
  });

  it("checks every command list against the project: npm scripts, project files, compose services, settings", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const compose = parseYaml(readFileSync(path.join(ROOT, "compose.yaml"), "utf8")) as { services: Record<string, unknown> };
    const lists = snippets.filter((s) => s.lang === "bash" && !isCurlWalk(s) && ours(s));
    expect(lists.length).toBeGreaterThan(3);
    for (const s of lists) {
      for (const raw of s.code.split("\n")) {
        const line = raw
          .replace(/\s+#.*$/, "")
          .replace(/^#.*$/, "")
          .trim();
        if (!line) continue;
        // A setting on a line of its own (NAME=value, quoted or not): the name is one of .env.example's.
        const setting = /^([A-Z][A-Z0-9_]*)=("[^"]*"|\S*)$/.exec(line);
        if (setting) {
          expect(isSetting(setting[1]), `${where(s)}: ${setting[1]} is not in .env.example`).toBe(true);
          continue;
        }
        for (const command of line.split(/\s*(?:&&|;)\s*/)) {
          // Leading NAME=value assignments of a command: the names are settings too.
          const assignments = command.match(/^(?:[A-Z][A-Z0-9_]*=\S*\s+)+/)?.[0] ?? "";
          for (const name of assignments.match(/[A-Z][A-Z0-9_]*(?==)/g) ?? [])
            expect(isSetting(name), `${where(s)}: ${name} is not in .env.example`).toBe(true);
          const rest = command.slice(assignments.length).trim().split(/\s+/);
          const [cmd, sub, arg] = rest;
          if (cmd === "npm") {
            if (sub === "run") expect(Object.hasOwn(pkg.scripts, arg), `${where(s)}: npm run ${arg} is not a script`).toBe(true);
            else expect(["install", "ci", "test", "start"], `${where(s)}: npm ${sub}`).toContain(sub);
          } else if (cmd.startsWith("scripts/")) {
            expect(existsSync(path.join(ROOT, cmd)), `${where(s)}: ${cmd}`).toBe(true);
          } else if (cmd === "docker") {
            // scripts/container-check.sh builds and runs the same image with podman in CI.
            expect(existsSync(path.join(ROOT, "Dockerfile"))).toBe(true);
            if (sub === "compose" && rest.includes("run")) {
              const service = rest.slice(rest.indexOf("run") + 1).find((w) => !w.startsWith("-"));
              expect(Object.keys(compose.services), `${where(s)}: compose service ${service}`).toContain(service);
            }
            const script = rest.find((w) => w.startsWith("scripts/"));
            // The image runs the bundled .mjs that the build makes from the .ts of the same name.
            if (script)
              expect(
                [".mjs", ".ts"].some((ext) => existsSync(path.join(ROOT, script.replace(/\.(mjs|ts|js)$/, ext)))),
                `${where(s)}: ${script}`,
              ).toBe(true);
          } else if (cmd === "cp") {
            expect(existsSync(path.join(ROOT, sub)), `${where(s)}: ${sub}`).toBe(true);
          } else if (cmd === "apt-get") {
            expect(sub, where(s)).toBe("install");
          } else {
            throw new Error(`${where(s)}: no check for \`${command}\` (run it in a test, or mark the block not-run="why")`);
          }
        }
      }
      checked.add(s);
    }
  });

  it("parses every YAML and JSON snippet; the Prometheus examples use this server's metric names and path", async () => {
    const metrics = await (await fetch(`${server.baseUrl}/api/metrics`)).text();
    const names = new Set([...metrics.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    for (const s of snippets.filter((x) => (x.lang === "yaml" || x.lang === "json") && ours(x))) {
      const value = s.lang === "yaml" ? (parseYaml(s.code) as Record<string, unknown>) : (JSON.parse(s.code) as Record<string, unknown>);
      expect(value, where(s)).toBeTruthy();
      const text = s.code;
      if (/metrics_path:/.test(text)) expect(text, where(s)).toContain("metrics_path: /api/metrics");
      for (const m of text.matchAll(/expr:\s*(.+)/g)) {
        for (const used of m[1].matchAll(/\b([a-z_][a-z0-9_]*)(?=\{|\[)/g)) {
          const name = used[1].replace(/_(bucket|sum|count)$/, "");
          if (["rate", "sum", "increase", "by", "histogram_quantile"].includes(name)) continue;
          expect(names.has(name) || names.has(used[1]), `${where(s)}: metric ${used[1]} is not served by /api/metrics`).toBe(true);
        }
      }
      checked.add(s);
    }
  });

  it("every snippet with a language was run or checked above, or says why it cannot be", () => {
    // "text" blocks are program output shown in prose, not code.
    const left = snippets.filter((s) => s.lang && s.lang !== "text" && !checked.has(s));
    for (const s of left.filter((x) => x.attrs["run-by"])) {
      const suite = path.join(ROOT, s.attrs["run-by"]);
      expect(existsSync(suite), `${where(s)}: run-by ${s.attrs["run-by"]}`).toBe(true);
      expect(readFileSync(suite, "utf8"), `${where(s)}: ${s.attrs["run-by"]} finds it by its title`).toContain(`"${s.attrs.title}"`);
    }
    for (const s of left.filter((x) => !x.attrs["run-by"])) {
      expect(s.attrs["not-run"], `${where(s)} (${s.lang}) is neither run nor checked: add a check, or not-run="why"`).toMatch(
        /\w{3,}.*\w{3,}/,
      );
    }
  });
});

/** The README's sign-in, for a walk that needs an account to exist first. */
function readmeSignIn(email: string): string {
  return [
    `J=$(mktemp); CSRF=$(curl -s -c $J -b $J ${server.baseUrl}/api/auth/csrf | sed -E 's/.*"csrfToken":"([^"]+)".*/\\1/')`,
    `curl -s -c $J -b $J -X POST ${server.baseUrl}/api/auth/callback/dev --data-urlencode "csrfToken=$CSRF" --data-urlencode "email=${email}" -o /dev/null`,
  ].join("\n");
}
