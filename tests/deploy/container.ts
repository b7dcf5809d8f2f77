import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The deploy suite's container mode. With DEPLOY_IMAGE set (an image built from the Dockerfile), the
 * suite checks that image instead of the local `npm run build` output: its /app is the artifact,
 * migrations run as the image's migration command, and the server is the image's own command in a
 * container, on the host's network so it reaches the same PostgreSQL, Redis, S3 and provider stubs.
 * DEPLOY_CONTAINER_ENGINE is the engine's command line (default "podman"; scripts/container-check.sh
 * passes the flags this machine needs).
 */
export const DEPLOY_IMAGE = process.env.DEPLOY_IMAGE?.trim() || null;

function engine(): string[] {
  return (process.env.DEPLOY_CONTAINER_ENGINE?.trim() || "podman").split(/\s+/);
}

/** The engine's own environment: the host basics and its configuration file, never the server's settings. */
export function engineEnv(): NodeJS.ProcessEnv {
  const keep = ["PATH", "HOME", "CONTAINERS_CONF", "XDG_RUNTIME_DIR", "TMPDIR"];
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => keep.includes(k))) as NodeJS.ProcessEnv;
}

export interface ContainerRun {
  env: Record<string, string | undefined>;
  /** Mounted at the image's DATA_DIR (/data), writable by its unprivileged user. */
  dataDir?: string;
  name?: string;
  /** The command; absent: the image's own (`node server.js`). */
  command?: string[];
}

const HOST_ONLY = new Set(["DATA_DIR", "PATH", "HOME", "TMPDIR", "USER", "SHELL"]);

/** `<engine> run` arguments: host network, the given environment only, removed when it exits. */
export function containerCommand(image: string, run: ContainerRun): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const [command, ...flags] = engine();
  const args = [...flags, "run", "--rm", "--network=host"];
  if (run.name) args.push("--name", run.name);
  if (run.dataDir) {
    // A temporary directory of the test: the image runs as uid 10001, which must be able to write it.
    chmodSync(run.dataDir, 0o777);
    args.push("--volume", `${run.dataDir}:/data`);
  }
  for (const [key, value] of Object.entries(run.env)) {
    // The image sets DATA_DIR=/data (the mounted volume) and its own PATH and HOME; the host's paths
    // and login variables mean nothing inside.
    if (value !== undefined && !HOST_ONLY.has(key)) args.push("--env", `${key}=${value}`);
  }
  args.push(image, ...(run.command ?? []));
  return { command, args, env: engineEnv() };
}

/** Runs an engine subcommand to completion. */
export function engineRun(args: string[], timeoutMs = 120_000): { status: number | null; stdout: string; output: string } {
  const [command, ...flags] = engine();
  const result = spawnSync(command, [...flags, ...args], { env: engineEnv(), encoding: "utf8", timeout: timeoutMs });
  return { status: result.status, stdout: result.stdout ?? "", output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

/** Copies the image's /app (the standalone server as shipped) into a new temporary directory. */
export function extractImageApp(image: string): string {
  const created = engineRun(["create", image]);
  if (created.status !== 0) throw new Error(`could not create a container of ${image}:\n${created.output}`);
  const id = created.stdout.trim().split("\n").at(-1)!;
  const target = path.join(mkdtempSync(path.join(tmpdir(), "svc-deploy-image-")), "app");
  try {
    const copied = engineRun(["cp", `${id}:/app`, target]);
    if (copied.status !== 0) throw new Error(`could not copy /app out of ${image}:\n${copied.output}`);
  } finally {
    engineRun(["rm", "-f", id]);
  }
  return target;
}

/** A field of the image's configuration (`<engine> image inspect --format`). */
export function inspectImage(image: string, format: string): string {
  const result = engineRun(["image", "inspect", "--format", format, image]);
  if (result.status !== 0) throw new Error(`could not inspect ${image}:\n${result.output}`);
  return result.stdout.trim();
}
