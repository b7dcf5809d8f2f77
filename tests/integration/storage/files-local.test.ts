import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GET as GET_CONTENT } from "@/app/api/files/[id]/content/route";
import { DELETE as DELETE_FILE, GET as GET_FILE, POST as POST_FILE } from "@/app/api/files/[id]/route";
import { GET as LIST_FILES } from "@/app/api/files/route";
import { closeDb, db } from "@/lib/db/client";
import { localStorageRoot } from "@/lib/storage/local-store";
import { signLocalFileUrl } from "@/lib/storage/signed-url";
import { deleteUser } from "@/lib/account/delete-user";
import { setEnv } from "@/tests/helpers/env";
import { call, send, signIn } from "@/tests/helpers/http";
import { countingStream, fixtures, sha256, upload } from "./upload-helpers";

afterAll(closeDb);

/** Every file under the local storage root (objects and any leftover partial files). */
function storedObjects(): string[] {
  const root = localStorageRoot();
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(path.relative(root, full));
    }
  };
  walk(root);
  return out;
}

async function fileRows(userId: string) {
  return (await db()).file.findMany({ where: { userId } });
}

/** Follows a local signed url through the content route; `bytes` is the raw body. */
async function fetchLocal(url: string) {
  const u = new URL(url);
  const id = decodeURIComponent(u.pathname.split("/")[3]);
  const response = await send(GET_CONTENT, { path: u.pathname + u.search, params: { id } });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: { error?: string } | undefined;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, body };
}

describe("POST /api/upload (local disk store)", () => {
  it("answers 401 without a session, before reading the body", async () => {
    const { stream, stats } = countingStream(100, 1);
    const res = await upload(null, { filename: "a.txt", filetype: "text/plain", filesize: 100, body: stream });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "Authentication required", code: "unauthorized" });
    expect(stats.pulled).toBe(0);
  });

  it.each(["filename", "filesize", "filetype"])("answers 400 naming the missing %s", async (missing) => {
    const { cookie } = await signIn();
    const bytes = fixtures.text();
    const res = await upload(bytes, { cookie, filename: "a.txt", filetype: "text/plain", [missing]: null });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(`${missing}: is required`);
  });

  it("answers 400 for a non-numeric filesize", async () => {
    const { cookie } = await signIn();
    const res = await upload(fixtures.text(), { cookie, filename: "a.txt", filetype: "text/plain", filesize: "12kb" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/filesize: must be a whole number of bytes/);
  });

  it.each(["text/html", "application/x-msdownload", "image/svg+xml", "application/octet-stream"])(
    "answers 400 for the type %s, which is not on the allowlist",
    async (type) => {
      const { cookie } = await signIn();
      const res = await upload(fixtures.text(), { cookie, filename: "x", filetype: type });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/Unsupported filetype .*allowed: image\/png/);
    },
  );

  it.each([
    ["image/png", () => fixtures.jpeg(), /does not match filetype image\/png \(it is image\/jpeg\)/],
    ["image/jpeg", () => fixtures.text(), /does not match filetype image\/jpeg/],
    ["application/pdf", () => fixtures.png(), /does not match filetype application\/pdf \(it is image\/png\)/],
    ["text/plain", () => fixtures.png(), /File content is image\/png, not text\/plain/],
    ["text/csv", () => Buffer.from("a,b\n1,\u0000\n"), /not text \(NUL byte\)/],
    ["application/json", () => Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), /not valid UTF-8/],
    ["audio/mpeg", () => fixtures.wav(), /does not match filetype audio\/mpeg \(it is audio\/wav\)/],
  ])("answers 400 when the content does not match %s", async (type, make, message) => {
    const { cookie, user } = await signIn();
    const res = await upload(make(), { cookie, filename: "f", filetype: type });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await fileRows(user.id)).toEqual([]);
    expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
  });

  it("rejects invalid UTF-8 far past the sniffed head (text is checked while streaming)", async () => {
    const { cookie, user } = await signIn();
    const bytes = Buffer.concat([Buffer.alloc(20_000, 0x61), Buffer.from([0xff, 0xfe]), Buffer.alloc(100, 0x61)]);
    const res = await upload(bytes, { cookie, filename: "notes.md", filetype: "text/markdown" });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/not valid UTF-8/);
    expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
  });

  it("answers 413 when the declared filesize is over UPLOAD_MAX_BYTES, without reading the body", async () => {
    const restore = setEnv({ UPLOAD_MAX_BYTES: "1000" });
    try {
      const { cookie } = await signIn();
      const { stream, stats } = countingStream(1001, 1);
      const res = await upload(null, { cookie, filename: "big.txt", filetype: "text/plain", filesize: 1001, body: stream });
      expect(res.status).toBe(413);
      expect(res.body.error).toMatch(/filesize 1001 is over the maximum of 1000 bytes/);
      expect(stats.pulled).toBe(0);
    } finally {
      restore();
    }
  });

  it("answers 413 and stops reading when the body runs past the maximum despite a small filesize", async () => {
    const restore = setEnv({ UPLOAD_MAX_BYTES: "10000" });
    try {
      const { cookie, user } = await signIn();
      const { stream, stats } = countingStream(1000, 1000); // would be 1 MB
      const res = await upload(null, { cookie, filename: "a.txt", filetype: "text/plain", filesize: 10000, body: stream });
      expect(res.status).toBe(413);
      expect(res.body.error).toMatch(/larger than the maximum of 10000 bytes/);
      expect(stats.pulled).toBeLessThan(30);
      expect(await fileRows(user.id)).toEqual([]);
      expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
    } finally {
      restore();
    }
  });

  it("answers 400 when fewer bytes arrive than filesize says, and keeps nothing", async () => {
    const { cookie, user } = await signIn();
    const bytes = fixtures.png(500);
    const res = await upload(bytes, { cookie, filename: "a.png", filetype: "image/png", filesize: 501 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Received 500 bytes but filesize is 501");
    expect(await fileRows(user.id)).toEqual([]);
    expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
  });

  it("answers 400 when more bytes arrive than filesize says", async () => {
    const { cookie, user } = await signIn();
    const res = await upload(fixtures.png(500), { cookie, filename: "a.png", filetype: "image/png", filesize: 499 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/larger than filesize \(499 bytes\)/);
    expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
  });

  it("answers 400 for an empty file or a missing body", async () => {
    const { cookie } = await signIn();
    const empty = await upload(Buffer.alloc(0), { cookie, filename: "a.txt", filetype: "text/plain" });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/empty files are not accepted/);
    const noBody = await upload(null, { cookie, filename: "a.txt", filetype: "text/plain", filesize: 10 });
    expect(noBody.status).toBe(400);
    expect(noBody.body.error).toMatch(/Request body is empty/);
  });

  it("answers 400 and keeps nothing when the client's stream breaks mid-upload", async () => {
    const { cookie, user } = await signIn();
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 3) controller.enqueue(new Uint8Array(5000).fill(0x62));
        else controller.error(new Error("connection reset"));
      },
    });
    const res = await upload(null, { cookie, filename: "a.txt", filetype: "text/plain", filesize: 50_000, body: stream });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/interrupted/);
    expect(await fileRows(user.id)).toEqual([]);
    expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
  });

  it("stores the file under a random key, records it and answers the file record with a working signed url", async () => {
    const { cookie, user } = await signIn();
    const bytes = fixtures.pdf(70_000);
    const res = await upload(bytes, { cookie, filename: "../../etc/Quarterly report.pdf", filetype: "application/pdf" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: expect.stringMatching(new RegExp(`^http://localhost:3000/api/files/${res.body.id}/content\\?expires=\\d+&token=[0-9a-f]{64}$`)),
      originalName: "Quarterly report.pdf",
      size: 70_000,
      contentType: "application/pdf",
      createdAt: expect.any(String),
    });
    expect(res.headers.get("x-ratelimit-limit")).toBe("10");
    const [row] = await fileRows(user.id);
    expect(row.sha256).toBe(sha256(bytes));
    expect(row.storage).toBe("local");
    expect(row.storageKey).toMatch(new RegExp(`^uploads/${user.id}/[0-9a-f-]{36}$`));
    expect(row.storageKey).not.toContain("Quarterly");
    expect(storedObjects()).toContain(row.storageKey);

    const expires = Number(new URL(res.body.url).searchParams.get("expires"));
    expect(expires - Date.now() / 1000).toBeGreaterThan(890);
    expect(expires - Date.now() / 1000).toBeLessThanOrEqual(900);

    const download = await fetchLocal(res.body.url);
    expect(download.status).toBe(200);
    expect(download.bytes.equals(bytes)).toBe(true);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("content-length")).toBe("70000");
    expect(download.headers.get("content-disposition")).toContain('filename="Quarterly report.pdf"');
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("accepts each allowed kind of content (normalising type aliases)", async () => {
    const { cookie } = await signIn();
    const cases: Array<[string, Buffer, string]> = [
      ["image/jpg", fixtures.jpeg(), "image/jpeg"],
      ["image/png", fixtures.png(), "image/png"],
      ["text/plain; charset=utf-8", fixtures.text(), "text/plain"],
      ["audio/x-wav", fixtures.wav(), "audio/wav"],
      ["application/json", Buffer.from(JSON.stringify({ ok: true, n: Math.random() })), "application/json"],
    ];
    for (const [declared, bytes, stored] of cases) {
      const res = await upload(bytes, { cookie, filename: "f", filetype: declared });
      expect(res.status, declared).toBe(200);
      expect(res.body.contentType).toBe(stored);
    }
  });

  it("answers 409 for the same content uploaded again by the same owner, but not for another owner", async () => {
    const alice = await signIn();
    const bob = await signIn();
    const bytes = fixtures.png(1000);
    expect((await upload(bytes, { cookie: alice.cookie, filename: "a.png", filetype: "image/png" })).status).toBe(200);
    const again = await upload(bytes, { cookie: alice.cookie, filename: "renamed.png", filetype: "image/png" });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/Duplicate file/);
    expect(await fileRows(alice.user.id)).toHaveLength(1);
    expect(storedObjects().filter((p) => p.includes(alice.user.id))).toHaveLength(1);
    expect((await upload(bytes, { cookie: bob.cookie, filename: "a.png", filetype: "image/png" })).status).toBe(200);
  });

  it("answers 503 on a database failure and deletes the stored object (no orphan)", async () => {
    const { cookie, user } = await signIn();
    const prisma = await db();
    await prisma.$executeRawUnsafe(
      `CREATE OR REPLACE FUNCTION fail_file_insert() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'simulated database failure'; END $$ LANGUAGE plpgsql`,
    );
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER fail_file_insert BEFORE INSERT ON files FOR EACH ROW EXECUTE FUNCTION fail_file_insert()`,
    );
    try {
      const res = await upload(fixtures.png(2000), { cookie, filename: "a.png", filetype: "image/png" });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: "Database unavailable; the file was not stored", code: "unavailable" });
      expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER fail_file_insert ON files`);
    }
    expect((await upload(fixtures.png(2000), { cookie, filename: "a.png", filetype: "image/png" })).status).toBe(200);
  });

  it("answers 429 after 10 uploads per user in the hour", async () => {
    const { cookie } = await signIn();
    for (let i = 0; i < 10; i++) {
      expect((await upload(fixtures.text(64), { cookie, filename: `n${i}.txt`, filetype: "text/plain" })).status).toBe(200);
    }
    const res = await upload(fixtures.text(64), { cookie, filename: "n.txt", filetype: "text/plain" });
    expect(res.status).toBe(429);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  });
});

describe("GET/DELETE /api/files/{id} and GET /api/files", () => {
  it("answers 401 without a session", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    expect((await call(GET_FILE, { path: `/api/files/${id}`, params: { id } })).status).toBe(401);
    expect((await call(DELETE_FILE, { method: "DELETE", path: `/api/files/${id}`, params: { id } })).status).toBe(401);
    expect((await call(LIST_FILES, { path: "/api/files" })).status).toBe(401);
  });

  it("serves the owner and answers another user's, a malformed and a missing id with the same 404", async () => {
    const owner = await signIn();
    const other = await signIn();
    const created = await upload(fixtures.png(), { cookie: owner.cookie, filename: "mine.png", filetype: "image/png" });
    const id = created.body.id;

    const mine = await call(GET_FILE, { path: `/api/files/${id}`, cookie: owner.cookie, params: { id } });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      id,
      originalName: "mine.png",
      size: 256,
      contentType: "image/png",
      createdAt: created.body.createdAt,
    });
    expect(mine.headers.get("x-ratelimit-limit")).toBeNull();

    const answers = await Promise.all([
      call(GET_FILE, { path: `/api/files/${id}`, cookie: other.cookie, params: { id } }),
      call(GET_FILE, { path: "/api/files/not-a-uuid", cookie: owner.cookie, params: { id: "not-a-uuid" } }),
      call(GET_FILE, { path: "/api/files/x", cookie: owner.cookie, params: { id: "11111111-1111-4111-8111-111111111111" } }),
      call(DELETE_FILE, { method: "DELETE", path: `/api/files/${id}`, cookie: other.cookie, params: { id } }),
      call(DELETE_FILE, { method: "DELETE", path: "/api/files/'1 OR 1=1", cookie: other.cookie, params: { id: "'1 OR 1=1" } }),
    ]);
    for (const a of answers) {
      expect(a.status).toBe(404);
      expect(a.body).toEqual({ error: "File not found", code: "not_found" });
    }
    // the other user's delete changed nothing
    expect((await call(GET_FILE, { path: `/api/files/${id}`, cookie: owner.cookie, params: { id } })).status).toBe(200);
  });

  it("deletes the object and the record; the signed url stops working", async () => {
    const { cookie, user } = await signIn();
    const created = await upload(fixtures.text(300), { cookie, filename: "n.txt", filetype: "text/plain" });
    const id = created.body.id;
    const [row] = await fileRows(user.id);
    expect((await fetchLocal(created.body.url)).status).toBe(200);

    const res = await call(DELETE_FILE, { method: "DELETE", path: `/api/files/${id}`, cookie, params: { id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "File deleted" });
    expect(await fileRows(user.id)).toEqual([]);
    expect(storedObjects()).not.toContain(row.storageKey);

    const after = await fetchLocal(created.body.url);
    expect(after.status).toBe(404);
    expect((await call(GET_FILE, { path: `/api/files/${id}`, cookie, params: { id } })).status).toBe(404);
    expect((await call(DELETE_FILE, { method: "DELETE", path: `/api/files/${id}`, cookie, params: { id } })).status).toBe(404);
  });

  it("refuses a tampered or expired signed url with 403, before looking the file up", async () => {
    const { cookie } = await signIn();
    const created = await upload(fixtures.text(100), { cookie, filename: "n.txt", filetype: "text/plain" });
    const good = new URL(created.body.url);

    const tampered = new URL(good);
    tampered.searchParams.set("expires", String(Number(good.searchParams.get("expires")) + 3600));
    const t = await fetchLocal(tampered.toString());
    expect(t.status).toBe(403);
    expect(t.body).toEqual({ error: "Invalid file address signature", code: "forbidden" });

    const noToken = new URL(good);
    noToken.searchParams.delete("token");
    expect((await fetchLocal(noToken.toString())).status).toBe(403);

    const expired = signLocalFileUrl("http://localhost:3000", created.body.id, 900, Date.now() - 901_000);
    const e = await fetchLocal(expired);
    expect(e.status).toBe(403);
    expect(e.body?.error).toMatch(/expired/);

    // a valid token for one file does not open another
    const other = await upload(fixtures.text(100), { cookie, filename: "o.txt", filetype: "text/plain" });
    const swapped = new URL(other.body.url);
    swapped.search = good.search;
    expect((await fetchLocal(swapped.toString())).status).toBe(403);
  });

  it("honours FILE_URL_TTL_SECONDS", async () => {
    const restore = setEnv({ FILE_URL_TTL_SECONDS: "60" });
    try {
      const { cookie } = await signIn();
      const created = await upload(fixtures.text(100), { cookie, filename: "n.txt", filetype: "text/plain" });
      const expires = Number(new URL(created.body.url).searchParams.get("expires"));
      expect(expires - Date.now() / 1000).toBeLessThanOrEqual(60);
      expect(expires - Date.now() / 1000).toBeGreaterThan(50);
    } finally {
      restore();
    }
  });

  it("lists only the owner's files, newest first, paginated", async () => {
    const owner = await signIn();
    const other = await signIn();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await upload(fixtures.text(50), { cookie: owner.cookie, filename: `f${i}.txt`, filetype: "text/plain" });
      ids.push(res.body.id);
    }
    await upload(fixtures.text(50), { cookie: other.cookie, filename: "theirs.txt", filetype: "text/plain" });

    const page1 = await call(LIST_FILES, { path: "/api/files?limit=2", cookie: owner.cookie });
    expect(page1.status).toBe(200);
    expect(page1.body.pagination).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true });
    expect(page1.body.files.map((f: { id: string }) => f.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.files[0].url).toMatch(/\/content\?expires=/);

    const page3 = await call(LIST_FILES, { path: "/api/files?limit=2&offset=4", cookie: owner.cookie });
    expect(page3.body.pagination).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false });
    expect(page3.body.files.map((f: { id: string }) => f.id)).toEqual([ids[0]]);

    const bad = await call(LIST_FILES, { path: "/api/files?limit=0", cookie: owner.cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/limit/);
  });

  it("answers 405 for other methods", async () => {
    const res = await call(POST_FILE, { method: "POST", path: "/api/files/x", params: { id: "x" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, DELETE");
  });

  it("deleting a user deletes their stored objects", async () => {
    const { cookie, user } = await signIn();
    await upload(fixtures.png(), { cookie, filename: "a.png", filetype: "image/png" });
    await upload(fixtures.png(), { cookie, filename: "b.png", filetype: "image/png" });
    expect(storedObjects().filter((p) => p.includes(user.id))).toHaveLength(2);
    await deleteUser(user.id);
    expect(storedObjects().filter((p) => p.includes(user.id))).toEqual([]);
    expect(await fileRows(user.id)).toEqual([]);
  });
});

describe("GET /api/files/{id}/content with Range (local store)", () => {
  async function stored() {
    const { cookie } = await signIn();
    const bytes = fixtures.pdf(10_000);
    const res = await upload(bytes, { cookie, filename: "ranges.pdf", filetype: "application/pdf" });
    expect(res.status).toBe(200);
    const u = new URL(res.body.url as string);
    return { bytes, id: res.body.id as string, path: u.pathname + u.search };
  }
  async function ranged(path: string, id: string, range: string) {
    const response = await send(GET_CONTENT, { path, params: { id }, headers: { range } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  it("serves one byte range as 206 with Content-Range, including open-ended and suffix ranges", async () => {
    const { bytes, id, path } = await stored();
    const middle = await ranged(path, id, "bytes=100-199");
    expect(middle.status).toBe(206);
    expect(middle.headers.get("content-range")).toBe("bytes 100-199/10000");
    expect(middle.headers.get("content-length")).toBe("100");
    expect(middle.headers.get("accept-ranges")).toBe("bytes");
    expect(middle.bytes.equals(bytes.subarray(100, 200))).toBe(true);

    const tail = await ranged(path, id, "bytes=9990-");
    expect(tail.headers.get("content-range")).toBe("bytes 9990-9999/10000");
    expect(tail.bytes.equals(bytes.subarray(9990))).toBe(true);

    const suffix = await ranged(path, id, "bytes=-5");
    expect(suffix.status).toBe(206);
    expect(suffix.bytes.equals(bytes.subarray(9995))).toBe(true);

    const clamped = await ranged(path, id, "bytes=9000-20000");
    expect(clamped.headers.get("content-range")).toBe("bytes 9000-9999/10000");
    expect(clamped.bytes.length).toBe(1000);
  });

  it("answers 416 with the size for a range past the end, and the whole file for a malformed or multi-range header", async () => {
    const { bytes, id, path } = await stored();
    const past = await ranged(path, id, "bytes=10000-");
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe("bytes */10000");
    expect(JSON.parse(past.bytes.toString()).error).toMatch(/Range not satisfiable/);

    for (const header of ["bytes=0-1,5-9", "items=0-5", "bytes=50-10"]) {
      const whole = await ranged(path, id, header);
      expect(whole.status).toBe(200);
      expect(whole.bytes.equals(bytes)).toBe(true);
    }
  });
});
