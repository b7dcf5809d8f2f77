import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE as DELETE_FILE, GET as GET_FILE } from "@/app/api/files/[id]/route";
import { GET as LIST_FILES } from "@/app/api/files/route";
import { closeDb, db } from "@/lib/db/client";
import { readStoredObject } from "@/lib/storage/read-stored-object";
import { deleteUser } from "@/lib/account/delete-user";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { startS3rver, type LocalS3 } from "@/tests/helpers/s3rver";
import { countingStream, fixtures, sha256, upload } from "./upload-helpers";

let s3: LocalS3;
let restoreEnv: () => void;
let inspector: S3Client;

beforeAll(async () => {
  s3 = await startS3rver();
  restoreEnv = setEnv(s3.env);
  // The test's own view of the bucket (the app's adapter is the only app code using the SDK).
  inspector = new S3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  });
});

afterAll(async () => {
  inspector?.destroy();
  restoreEnv?.();
  await s3?.close();
  await closeDb();
});

async function bucketKeys(prefix = ""): Promise<string[]> {
  const out = await inspector.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key as string);
}

describe("files on S3 (s3rver)", () => {
  it("streams an upload into the bucket byte for byte and answers a presigned url that reads it", async () => {
    const { cookie, user } = await signIn();
    const bytes = fixtures.png(300_000);
    const res = await upload(bytes, { cookie, filename: "photo.png", filetype: "image/png" });
    expect(res.status).toBe(200);
    const url = new URL(res.body.url);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("900");
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);

    const [row] = await (await db()).file.findMany({ where: { userId: user.id } });
    expect(row.storage).toBe("s3");
    expect(row.storageKey).toMatch(new RegExp(`^uploads/${user.id}/[0-9a-f-]{36}$`));
    expect(await bucketKeys(`uploads/${user.id}/`)).toEqual([row.storageKey]);

    const download = await fetch(res.body.url);
    expect(download.status).toBe(200);
    const got = Buffer.from(await download.arrayBuffer());
    expect(got.length).toBe(bytes.length); // no aws-chunked framing stored
    expect(sha256(got)).toBe(sha256(bytes));
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("content-disposition")).toContain('filename="photo.png"');

    // readStoredObject (used by RAG) reads the same bytes and respects its cap
    expect(sha256(await readStoredObject(row.storageKey, 1_000_000, "s3"))).toBe(sha256(bytes));
    await expect(readStoredObject(row.storageKey, 1000, "s3")).rejects.toThrow(/larger than 1000 bytes/);
  });

  it("uploads a multi-part object (larger than one 5 MB part) intact", async () => {
    const { cookie } = await signIn();
    const bytes = fixtures.wav(12 * 1024 * 1024 + 123);
    const res = await upload(bytes, { cookie, filename: "long.wav", filetype: "audio/wav" });
    expect(res.status).toBe(200);
    const got = Buffer.from(await (await fetch(res.body.url)).arrayBuffer());
    expect(got.length).toBe(bytes.length);
    expect(sha256(got)).toBe(sha256(bytes));
  });

  it("answers 413 mid-stream past the maximum and leaves nothing in the bucket", async () => {
    const restore = setEnv({ UPLOAD_MAX_BYTES: String(6 * 1024 * 1024) });
    try {
      const { cookie, user } = await signIn();
      const { stream, stats } = countingStream(64 * 1024, 400); // 25 MB if fully read
      const res = await upload(null, { cookie, filename: "a.txt", filetype: "text/plain", filesize: 6 * 1024 * 1024, body: stream });
      expect(res.status).toBe(413);
      expect(stats.pulled).toBeLessThan(140);
      expect(await bucketKeys(`uploads/${user.id}/`)).toEqual([]);
      expect(await (await db()).file.count({ where: { userId: user.id } })).toBe(0);
    } finally {
      restore();
    }
  });

  it("answers 400 on content mismatch and 409 on a duplicate, deleting the second object", async () => {
    const { cookie, user } = await signIn();
    const mismatch = await upload(fixtures.text(), { cookie, filename: "x.png", filetype: "image/png" });
    expect(mismatch.status).toBe(400);
    const bytes = fixtures.pdf(5000);
    expect((await upload(bytes, { cookie, filename: "a.pdf", filetype: "application/pdf" })).status).toBe(200);
    const dup = await upload(bytes, { cookie, filename: "b.pdf", filetype: "application/pdf" });
    expect(dup.status).toBe(409);
    expect(await bucketKeys(`uploads/${user.id}/`)).toHaveLength(1);
  });

  it("owner-only read and delete; after delete the presigned url answers 404", async () => {
    const owner = await signIn();
    const other = await signIn();
    const created = await upload(fixtures.jpeg(2000), { cookie: owner.cookie, filename: "a.jpg", filetype: "image/jpeg" });
    const id = created.body.id;

    const foreign = await call(GET_FILE, { path: `/api/files/${id}`, cookie: other.cookie, params: { id } });
    expect(foreign.status).toBe(404);
    const foreignDelete = await call(DELETE_FILE, { method: "DELETE", path: `/api/files/${id}`, cookie: other.cookie, params: { id } });
    expect(foreignDelete.status).toBe(404);
    expect((await fetch(created.body.url)).status).toBe(200);

    const mine = await call(GET_FILE, { path: `/api/files/${id}`, cookie: owner.cookie, params: { id } });
    expect(mine.status).toBe(200);
    expect(new URL(mine.body.url).origin).toBe(s3.endpoint);

    const list = await call(LIST_FILES, { path: "/api/files", cookie: owner.cookie });
    expect(list.body.files.map((f: { id: string }) => f.id)).toEqual([id]);

    const del = await call(DELETE_FILE, { method: "DELETE", path: `/api/files/${id}`, cookie: owner.cookie, params: { id } });
    expect(del.body).toEqual({ success: true, message: "File deleted" });
    expect((await fetch(created.body.url)).status).toBe(404);
    expect((await fetch(mine.body.url)).status).toBe(404);
    expect(await bucketKeys(`uploads/${owner.user.id}/`)).toEqual([]);
  });

  it("a presigned url stops working when it expires", async () => {
    const restore = setEnv({ FILE_URL_TTL_SECONDS: "1" });
    try {
      const { cookie } = await signIn();
      const created = await upload(fixtures.png(), { cookie, filename: "a.png", filetype: "image/png" });
      expect(new URL(created.body.url).searchParams.get("X-Amz-Expires")).toBe("1");
      expect((await fetch(created.body.url)).status).toBe(200);
      // Waits for the expiry itself (S3 counts whole seconds from the signing time), not a fixed time.
      let expired = await fetch(created.body.url);
      for (const until = Date.now() + 5000; expired.status === 200 && Date.now() < until; expired = await fetch(created.body.url)) {
        await expired.arrayBuffer();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(expired.status).toBe(403);
      expect(await expired.text()).toMatch(/expired/i);
    } finally {
      restore();
    }
  });

  it("answers 500 when the object store is unreachable and records nothing", async () => {
    const restore = setEnv({ S3_ENDPOINT: "http://127.0.0.1:9" });
    try {
      const { cookie, user } = await signIn();
      const res = await upload(fixtures.png(), { cookie, filename: "a.png", filetype: "image/png" });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: "Storing the file failed", code: "upstream_failed" });
      expect(await (await db()).file.count({ where: { userId: user.id } })).toBe(0);
    } finally {
      restore();
    }
  });

  it("deleting a user deletes their objects from the bucket", async () => {
    const { cookie, user } = await signIn();
    await upload(fixtures.png(), { cookie, filename: "a.png", filetype: "image/png" });
    await upload(fixtures.text(), { cookie, filename: "a.txt", filetype: "text/plain" });
    expect(await bucketKeys(`uploads/${user.id}/`)).toHaveLength(2);
    await deleteUser(user.id);
    expect(await bucketKeys(`uploads/${user.id}/`)).toEqual([]);
  });
});
