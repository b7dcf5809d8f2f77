import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
// @ts-ignore
import S3rver from "s3rver";

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Environment that points the app's S3 store at this server. */
  env: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * A real S3 protocol server (s3rver) on 127.0.0.1 with an ephemeral port and its own directory, with
 * one bucket. Credentials are s3rver's fixed S3RVER/S3RVER. Note: s3rver checks a presigned
 * URL's expiry (X-Amz-Date + X-Amz-Expires) but does not verify SigV4 signatures.
 */
export async function startS3rver(bucket = "test-bucket"): Promise<LocalS3> {
  const directory = mkdtempSync(path.join(tmpdir(), "s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      S3_BUCKET: bucket,
      S3_REGION: "us-east-1",
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true",
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
