import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ABANDONED_UPLOAD_AFTER_MS, sweepAbandonedUploads } from "@/lib/storage";
import { setEnv } from "@/tests/helpers/env";

/**
 * The S3 side of the abandoned-upload sweep, against a local peer speaking S3's wire protocol for
 * ListMultipartUploads (paginated) and AbortMultipartUpload (s3rver does not implement the listing).
 */
interface OpenUpload {
  key: string;
  uploadId: string;
  initiated: Date;
}

let server: Server;
let restore: () => void;
const open: OpenUpload[] = [];
const aborted: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://s3.test");
    if (req.method === "GET" && url.pathname.replace(/\/$/, "") === "/sweep-bucket" && url.searchParams.has("uploads")) {
      // Pages of one upload, to exercise the markers.
      const after = url.searchParams.get("upload-id-marker");
      const index = after ? open.findIndex((u) => u.uploadId === after) + 1 : 0;
      const page = open.slice(index, index + 1);
      const truncated = index + 1 < open.length;
      const xml = `<?xml version="1.0" encoding="UTF-8"?>
<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>sweep-bucket</Bucket>
<IsTruncated>${truncated}</IsTruncated>${truncated ? `<NextKeyMarker>${page[0].key}</NextKeyMarker><NextUploadIdMarker>${page[0].uploadId}</NextUploadIdMarker>` : ""}
${page.map((u) => `<Upload><Key>${u.key}</Key><UploadId>${u.uploadId}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`).join("")}
</ListMultipartUploadsResult>`;
      res.writeHead(200, { "content-type": "application/xml" }).end(xml);
      return;
    }
    if (req.method === "DELETE" && url.searchParams.has("uploadId")) {
      aborted.push(`${url.pathname.replace("/sweep-bucket/", "")} ${url.searchParams.get("uploadId")}`);
      res.writeHead(204).end();
      return;
    }
    res.writeHead(501, { "content-type": "application/xml" }).end("<Error><Code>NotImplemented</Code></Error>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  restore = setEnv({
    S3_BUCKET: "sweep-bucket",
    S3_REGION: "us-east-1",
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_FORCE_PATH_STYLE: "true",
    S3_ACCESS_KEY_ID: "test",
    S3_SECRET_ACCESS_KEY: "test",
  });
});

afterAll(async () => {
  restore();
  await new Promise((resolve) => server.close(resolve));
});

describe("abandoned S3 multipart uploads", () => {
  it("are aborted when older than the upload timeout, across pages; uploads in progress are kept", async () => {
    const now = Date.now();
    open.push(
      { key: "uploads/u1/old-1", uploadId: "up-old-1", initiated: new Date(now - ABANDONED_UPLOAD_AFTER_MS - 60_000) },
      { key: "uploads/u1/fresh", uploadId: "up-fresh", initiated: new Date(now - 30_000) },
      { key: "uploads/u2/old-2", uploadId: "up-old-2", initiated: new Date(now - 3 * ABANDONED_UPLOAD_AFTER_MS) },
    );
    const result = await sweepAbandonedUploads();
    expect(aborted).toEqual(["uploads/u1/old-1 up-old-1", "uploads/u2/old-2 up-old-2"]);
    expect(result.removed).toBe(2);
  });
});
