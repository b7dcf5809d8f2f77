/**
 * s3rver (tests/helpers/s3rver.ts: real S3 protocol on 127.0.0.1, one bucket, its own directory) as
 * its own process for bench/upload-memory.ts, so its work is neither on the load generator's event
 * loop nor counted in the app server's memory.
 * IPC: first message out = { endpoint, bucket, env }; in { ping: true } -> { ok: true }.
 */
import { startS3rver } from "@/tests/helpers/s3rver";

async function main(): Promise<void> {
  const s3 = await startS3rver("bench-uploads");
  const send = (m: unknown) => process.send?.(m);
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    void s3.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("message", () => send({ ok: true }));
  process.on("SIGTERM", close);
  process.on("disconnect", close);
  send({ endpoint: s3.endpoint, bucket: s3.bucket, env: s3.env });
}

void main();
