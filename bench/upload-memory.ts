/**
 * npm run bench:upload — the upload memory benchmark (issue 6): a BENCH_UPLOAD_MB (500) MiB upload
 * through POST /api/upload to the local disk store and to S3 (s3rver, its own process), on the real
 * `next start` of a production build (NEXT_DIST_DIR=.next-bench) with UPLOAD_MAX_BYTES raised.
 * Writes the "Uploads" section of docs/BENCHMARKS.md and the raw numbers to
 * bench/results/upload-memory-<time>.json.
 *
 * Memory: the server's process tree (the `next start` PID and any children) is sampled every
 * SAMPLE_MS from /proc/<pid>/status (VmRSS) before and during each upload; in addition its peak RSS
 * counter (VmHWM) is reset just before the upload (`5` written to /proc/<pid>/clear_refs) and read
 * after it, so a peak between two samples is not missed. Growth = peak during the upload − RSS just
 * before it (target: < 64 MB).
 *
 * Throughput: the baseline is a plain fs stream copy (createReadStream → createWriteStream) of the
 * same file on the same disk, interleaved with the uploads in every round (copy, local upload, copy,
 * S3 upload), so load from elsewhere on the machine hits both alike; ratio = upload MB/s ÷ copy MB/s
 * of the same round, median over rounds.
 *
 * Settings: BENCH_UPLOAD_MB (500), BENCH_ROUNDS (2), BENCH_SKIP_BUILD=true to reuse .next-bench.
 */
import { randomFillSync } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { open } from "node:fs/promises";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from "@aws-sdk/client-s3";
import { removeDir } from "@/tests/e2e/server";
import { assertLoopback, median } from "./lib/ai-http";
import { ensureBenchBuild, signInUsers, startBenchServer, startHelper, type RunningServer } from "./lib/ai-server";
import { fmt, writeSection } from "./lib/report";

const MIB = 1024 * 1024;
const UPLOAD_BYTES = Number(process.env.BENCH_UPLOAD_MB ?? 500) * MIB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MAX_BYTES = UPLOAD_BYTES + 100 * MIB;
const WARMUP_BYTES = 12 * MIB;
const SAMPLE_MS = 20;
const TARGET_MB = 64;

type Store = "local" | "s3";

interface MemorySample {
  before: number;
  peakSampled: number;
  peakHwm: number;
  after: number;
  samples: number;
}

interface UploadRun {
  store: Store;
  round: number;
  seconds: number;
  mbps: number;
  status: number;
  size: number;
  memory: MemorySample;
  /** Growth = max(peakSampled, peakHwm) − before, bytes. */
  growth: number;
}

interface CopyRun {
  round: number;
  /** The upload this copy was paired with (it ran right before it). */
  pairedWith: Store;
  seconds: number;
  mbps: number;
}

interface DirectS3Run {
  round: number;
  seconds: number;
  mbps: number;
}

/** S3 multipart part size of lib/storage/s3-store.ts. */
const PART_SIZE = 5 * MIB;

/**
 * The same file straight to s3rver from this process (no app): multipart with the app's part size, one
 * part in flight while the next is read (as lib/storage/s3-store.ts does), then deleted. What s3rver
 * itself can take on this machine, to tell the app's cost from the S3 server's.
 */
async function directS3(env: Record<string, string>, file: string, round: number): Promise<DirectS3Run> {
  const client = new S3Client({
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    forcePathStyle: true,
    credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const Bucket = env.S3_BUCKET;
  const Key = `bench-direct-${round}-${Date.now()}`;
  const t0 = performance.now();
  const created = await client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: "image/png" }));
  const UploadId = created.UploadId;
  const handle = await open(file, "r");
  const parts: CompletedPart[] = [];
  let inFlight: Promise<void> = Promise.resolve();
  try {
    const buffers = [Buffer.allocUnsafe(PART_SIZE), Buffer.allocUnsafe(PART_SIZE)];
    for (let offset = 0, n = 1; offset < UPLOAD_BYTES; offset += PART_SIZE, n++) {
      const buf = buffers[n % 2];
      const { bytesRead } = await handle.read(buf, 0, Math.min(PART_SIZE, UPLOAD_BYTES - offset), offset);
      await inFlight;
      const PartNumber = n;
      inFlight = client
        .send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: buf.subarray(0, bytesRead), ContentLength: bytesRead }))
        .then((out) => {
          parts.push({ PartNumber, ETag: out.ETag });
        });
    }
    await inFlight;
    parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (error) {
    await inFlight.catch(() => undefined);
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
    throw error;
  } finally {
    await handle.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  await client.send(new DeleteObjectCommand({ Bucket, Key }));
  client.destroy();
  return { round, seconds, mbps: UPLOAD_BYTES / MIB / seconds };
}

/** The PIDs of a process and all its descendants. */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const taskDir = `/proc/${out[i]}/task`;
    if (!existsSync(taskDir)) continue;
    for (const tid of readdirSync(taskDir)) {
      try {
        const children = readFileSync(`${taskDir}/${tid}/children`, "utf8").trim();
        if (children) for (const c of children.split(/\s+/)) out.push(Number(c));
      } catch {
        // thread or process gone
      }
    }
  }
  return out;
}

function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const treeRss = (pid: number) => processTree(pid).reduce((a, p) => a + statusKb(p, "VmRSS"), 0);
const treeHwm = (pid: number) => processTree(pid).reduce((a, p) => a + statusKb(p, "VmHWM"), 0);
/** Resets the peak RSS counter (VmHWM) of every process of the tree to its current RSS. */
function resetHwm(pid: number): void {
  for (const p of processTree(pid)) writeFileSync(`/proc/${p}/clear_refs`, "5");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Median of a few RSS samples over ~0.5 s: the resting size right before an upload. */
async function restingRss(pid: number): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < 10; i++) {
    values.push(treeRss(pid));
    await sleep(50);
  }
  return median(values);
}

/** Writes `bytes` bytes: a PNG signature, then random data (1 MiB of random bytes repeated, each MiB numbered). */
async function makeFile(file: string, bytes: number): Promise<void> {
  const block = Buffer.alloc(MIB);
  randomFillSync(block);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(block, 0);
  async function* chunks() {
    let written = 0;
    while (written < bytes) {
      const n = Math.min(MIB, bytes - written);
      const chunk = Buffer.from(block.subarray(0, n));
      if (written > 0) chunk.writeUInt32BE(written / MIB, 8);
      yield chunk;
      written += n;
    }
  }
  await pipeline(chunks(), createWriteStream(file));
}

/** POST the file as the raw body of /api/upload; resolves with status, parsed answer and seconds. */
function upload(
  server: RunningServer,
  cookie: string,
  file: string,
  bytes: number,
  name: string,
): Promise<{ status: number; body: { id?: string; size?: number; error?: string }; seconds: number }> {
  const u = assertLoopback(
    `${server.baseUrl}/api/upload?${new URLSearchParams({ filename: name, filesize: String(bytes), filetype: "image/png" })}`,
  );
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method: "POST",
        headers: { cookie, "content-type": "application/octet-stream", "content-length": String(bytes) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let body: { id?: string; size?: number; error?: string };
          try {
            body = JSON.parse(text);
          } catch {
            body = { error: text.slice(0, 200) };
          }
          resolve({ status: res.statusCode ?? 0, body, seconds: (performance.now() - t0) / 1000 });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    createReadStream(file).on("error", reject).pipe(req);
  });
}

function deleteFile(server: RunningServer, cookie: string, id: string): Promise<number> {
  const u = assertLoopback(`${server.baseUrl}/api/files/${encodeURIComponent(id)}`);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: "DELETE", headers: { cookie } }, (res) => {
      res.on("data", () => undefined);
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function measuredUpload(server: RunningServer, store: Store, round: number, cookie: string, file: string): Promise<UploadRun> {
  const before = await restingRss(server.pid);
  resetHwm(server.pid);
  let peakSampled = treeRss(server.pid);
  let samples = 1;
  const timer = setInterval(() => {
    peakSampled = Math.max(peakSampled, treeRss(server.pid));
    samples++;
  }, SAMPLE_MS);
  let result;
  try {
    result = await upload(server, cookie, file, UPLOAD_BYTES, `bench-${store}-${round}.png`);
  } finally {
    clearInterval(timer);
  }
  const peakHwm = treeHwm(server.pid);
  peakSampled = Math.max(peakSampled, treeRss(server.pid));
  const after = await restingRss(server.pid);
  if (result.status !== 200 || result.body.size !== UPLOAD_BYTES || !result.body.id) {
    throw new Error(`${store} upload round ${round}: status ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`);
  }
  const deleted = await deleteFile(server, cookie, result.body.id);
  if (deleted !== 200 && deleted !== 204) throw new Error(`${store} delete after round ${round}: status ${deleted}`);
  const memory = { before, peakSampled, peakHwm, after, samples };
  return {
    store,
    round,
    seconds: result.seconds,
    mbps: UPLOAD_BYTES / MIB / result.seconds,
    status: result.status,
    size: result.body.size,
    memory,
    growth: Math.max(peakSampled, peakHwm) - before,
  };
}

async function copyRun(src: string, dir: string, round: number, pairedWith: Store): Promise<CopyRun> {
  const dst = path.join(dir, `copy-${round}.bin`);
  const t0 = performance.now();
  await pipeline(createReadStream(src), createWriteStream(dst));
  const seconds = (performance.now() - t0) / 1000;
  rmSync(dst, { force: true });
  return { round, pairedWith, seconds, mbps: UPLOAD_BYTES / MIB / seconds };
}

const mb = (bytes: number) => bytes / MIB;

function report(uploads: UploadRun[], copies: CopyRun[], directs: DirectS3Run[], startedAt: Date, pids: Record<Store, number[]>): string {
  const cpu = cpus();
  const rows = (["local", "s3"] as const).map((store) => {
    const runs = uploads.filter((u) => u.store === store);
    const copyFor = runs.map((u) => copies.find((c) => c.round === u.round && c.pairedWith === store)!);
    const ratios = runs.map((u, i) => u.mbps / copyFor[i].mbps);
    const worst = Math.max(...runs.map((u) => u.growth));
    return `| ${store === "local" ? "local disk" : "S3 (s3rver)"} | ${runs.map((u) => fmt(mb(u.memory.before), 0)).join(", ")} | ${runs.map((u) => fmt(mb(Math.max(u.memory.peakSampled, u.memory.peakHwm)), 0)).join(", ")} | **${fmt(mb(worst), 1)}** (${runs.map((u) => fmt(mb(u.growth), 1)).join(", ")}) | ${worst < TARGET_MB * MIB ? "yes" : "**no**"} | ${fmt(median(runs.map((u) => u.mbps)), 0)} | ${fmt(median(copyFor.map((c) => c.mbps)), 0)} | **${fmt(median(ratios), 2)}** (${ratios.map((r) => fmt(r, 2)).join(", ")}) |`;
  });
  const s3Runs = uploads.filter((u) => u.store === "s3");
  const directRatios = s3Runs.map((u) => u.mbps / directs.find((d) => d.round === u.round)!.mbps);
  const processes = (list: number[]) => (list.length === 1 ? "one process" : `${list.length} processes`);
  return `
\`npm run bench:upload\` (bench/upload-memory.ts) on ${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC. Machine: ${cpu.length} × ${cpu[0]?.model ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GB, Node ${process.version}; the client, the server, s3rver and the copy share those 2 cores and one disk (other engineers' work ran at the same time).

Setup: \`next build\` (NEXT_DIST_DIR=.next-bench), two \`next start\` servers on 127.0.0.1 in production mode, embedded database, \`UPLOAD_MAX_BYTES\` = ${fmt(mb(MAX_BYTES), 0)} MiB: one with the local disk store (its DATA_DIR under the system temp directory), one with \`S3_*\` pointed at s3rver (tests/helpers/s3rver.ts, its own process, path-style, same disk). Each upload is ${fmt(mb(UPLOAD_BYTES), 0)} MiB (${UPLOAD_BYTES} bytes: a PNG signature followed by random bytes, declared \`filetype=image/png\`, so the content check passes and the RAG hook does not index it), sent by a Node HTTP client as the raw body of \`POST /api/upload\` straight from a file (\`createReadStream\` piped into the request, \`Content-Length\` set), as a different signed-in user each time; the answer's \`size\` is checked, then the file is deleted. Before the measured rounds each server takes one ${fmt(mb(WARMUP_BYTES), 0)} MiB upload (route, storage adapter and, for S3, the multipart path loaded).

Memory: RSS of the server's process tree (\`next start\` ran as ${processes(pids.local)} for the local store and ${processes(pids.s3)} for S3; the resting RSS is mostly the embedded database (PGlite, WebAssembly) and the loaded route bundles). "before" = median of 10 samples over 0.5 s right before the upload; "peak" = the larger of the highest VmRSS sampled every ${SAMPLE_MS} ms during the upload and VmHWM read after it (VmHWM reset through \`/proc/<pid>/clear_refs\` just before the upload, so a peak between samples is counted); growth = peak − before. Throughput: MiB/s from the first byte sent to the answer received, against a plain fs stream copy (\`createReadStream\` → \`createWriteStream\`, default 64 KiB chunks) of the same file to the same disk, in the same round (order per round: copy, local upload, copy, S3 upload, direct S3 upload; ${ROUNDS} rounds); ratio = upload ÷ copy of the same round, median over rounds (per-round values in brackets). The source file is in the page cache (written just before), so the copy is close to a memory-to-page-cache copy: a demanding baseline.

| Store | RSS before, MiB | peak RSS, MiB | **peak growth, MiB**: worst round (each round) | < ${TARGET_MB} MiB | upload MiB/s | fs copy MiB/s | **ratio** (per round) |
|---|---|---|---|---|---|---|---|
${rows.join("\n")}

S3 through the app vs the same bytes sent straight to s3rver from the bench process (no app: multipart with the app's 5 MiB parts, one part in flight while the next is read, as lib/storage/s3-store.ts does), same round: direct ${fmt(median(directs.map((d) => d.mbps)), 0)} MiB/s (${directs.map((d) => fmt(d.mbps, 0)).join(", ")}), app ÷ direct **${fmt(median(directRatios), 2)}** (${directRatios.map((r) => fmt(r, 2)).join(", ")}). s3rver (a JavaScript S3 server that writes each part to a file with its MD5, then concatenates the parts on completion) is the limit of the S3 row, not the upload route; a real S3 endpoint would be limited by the network instead.
`;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  ensureBenchBuild();
  const work = mkdtempSync(path.join(tmpdir(), "bench-upload-"));
  const src = path.join(work, "upload.png");
  const warm = path.join(work, "warm.png");
  const s3 = await startHelper<{ endpoint: string; bucket: string; env: Record<string, string> }>("s3rver-process.ts");
  const servers: Partial<Record<Store, RunningServer>> = {};
  const uploads: UploadRun[] = [];
  const copies: CopyRun[] = [];
  const directs: DirectS3Run[] = [];
  try {
    console.log(`upload bench: writing ${fmt(mb(UPLOAD_BYTES), 0)} MiB source file ...`);
    await makeFile(src, UPLOAD_BYTES);
    await makeFile(warm, WARMUP_BYTES);
    const common = { UPLOAD_MAX_BYTES: String(MAX_BYTES), FILE_URL_SECRET: "bench-file-url-secret-0123456789abcdef" };
    servers.local = await startBenchServer(common);
    servers.s3 = await startBenchServer({ ...common, ...s3.info.env });
    const users: Record<Store, string[]> = {
      local: await signInUsers(servers.local.baseUrl, ROUNDS + 1, "upload-bench-local"),
      s3: await signInUsers(servers.s3.baseUrl, ROUNDS + 1, "upload-bench-s3"),
    };
    for (const store of ["local", "s3"] as const) {
      const server = servers[store]!;
      const w = await upload(server, users[store][ROUNDS], warm, WARMUP_BYTES, `warm-${store}.png`);
      if (w.status !== 200 || !w.body.id) throw new Error(`${store} warm-up upload: ${w.status} ${JSON.stringify(w.body)}`);
      await deleteFile(server, users[store][ROUNDS], w.body.id);
      console.log(
        `  ${store}: server PID tree ${processTree(server.pid).join(", ")}, RSS ${fmt(mb(treeRss(server.pid)), 0)} MiB after warm-up`,
      );
    }
    await copyRun(src, work, -1, "local"); // warm the copy path too
    for (let round = 0; round < ROUNDS; round++) {
      for (const store of ["local", "s3"] as const) {
        const copy = await copyRun(src, work, round, store);
        copies.push(copy);
        const u = await measuredUpload(servers[store]!, store, round, users[store][round], src);
        uploads.push(u);
        if (store === "s3") {
          const d = await directS3(s3.info.env, src, round);
          directs.push(d);
          console.log(`  round ${round + 1} s3 direct (no app): ${fmt(d.mbps, 0)} MiB/s (${fmt(d.seconds, 1)} s)`);
        }
        console.log(
          `  round ${round + 1} ${store}: copy ${fmt(copy.mbps, 0)} MiB/s | upload ${fmt(u.mbps, 0)} MiB/s (${fmt(u.seconds, 1)} s) | RSS before ${fmt(mb(u.memory.before), 0)} MiB, peak sampled ${fmt(mb(u.memory.peakSampled), 0)} / HWM ${fmt(mb(u.memory.peakHwm), 0)} MiB (${u.memory.samples} samples), growth ${fmt(mb(u.growth), 1)} MiB, after ${fmt(mb(u.memory.after), 0)} MiB`,
        );
      }
    }
    const pids = { local: processTree(servers.local.pid), s3: processTree(servers.s3.pid) };
    const root = process.cwd();
    mkdirSync(path.join(root, "bench", "results"), { recursive: true });
    writeFileSync(
      path.join(root, "bench", "results", `upload-memory-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`),
      JSON.stringify({ uploadBytes: UPLOAD_BYTES, uploads, copies, directs }, null, 2),
    );
    if (process.env.BENCH_NO_DOC !== "true") {
      writeSection(path.join(root, "docs", "BENCHMARKS.md"), "Uploads", report(uploads, copies, directs, startedAt, pids));
      console.log("wrote the Uploads section of docs/BENCHMARKS.md");
    }
  } finally {
    for (const server of Object.values(servers)) {
      if (!server) continue;
      await server.stop();
      removeDir(server.dataDir);
    }
    await s3.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
