import { createHash, randomBytes } from "node:crypto";
import { POST as UPLOAD } from "@/app/api/upload/route";
import { call, type CallResult } from "@/tests/helpers/http";

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Bytes that start with the right magic for their type, with random content so each is unique. */
export const fixtures = {
  png: (size = 256) => Buffer.concat([PNG_SIGNATURE, randomBytes(Math.max(0, size - 8))]),
  jpeg: (size = 256) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(Math.max(0, size - 4))]),
  pdf: (size = 256) =>
    Buffer.concat([
      Buffer.from("%PDF-1.7\n"),
      Buffer.from(
        randomBytes(size)
          .toString("hex")
          .slice(0, Math.max(0, size - 9)),
      ),
    ]),
  text: (size = 256) => Buffer.from(`Hello, Grüße ✓ ${randomBytes(size).toString("base64")}`.slice(0, size), "utf8"),
  wav: (size = 256) => Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WAVE"), randomBytes(Math.max(0, size - 12))]),
};

export const sha256 = (buf: Buffer) => createHash("sha256").update(buf).digest("hex");

export interface UploadOptions {
  cookie?: string;
  filename?: string | null;
  filetype?: string | null;
  filesize?: number | string | null;
  body?: BodyInit | null;
  headers?: Record<string, string>;
}

/** POST /api/upload with the given bytes; query fields default from the body (null leaves one out). */
export function upload(bytes: Buffer | null, options: UploadOptions = {}): Promise<CallResult> {
  const query = new URLSearchParams();
  const filename = options.filename === undefined ? "file.bin" : options.filename;
  const filetype = options.filetype === undefined ? "application/octet-stream" : options.filetype;
  const filesize = options.filesize === undefined ? (bytes?.length ?? 0) : options.filesize;
  if (filename !== null) query.set("filename", filename);
  if (filesize !== null) query.set("filesize", String(filesize));
  if (filetype !== null) query.set("filetype", filetype);
  return call(UPLOAD, {
    method: "POST",
    path: `/api/upload?${query}`,
    cookie: options.cookie,
    headers: { "content-type": "application/octet-stream", ...options.headers },
    rawBody: options.body !== undefined ? (options.body ?? undefined) : bytes ? new Uint8Array(bytes) : undefined,
  });
}

/** A body stream that counts how many chunks the server pulled (highWaterMark 0: nothing is read ahead). */
export function countingStream(chunkSize: number, chunks: number) {
  const stats = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (stats.pulled >= chunks) return controller.close();
        stats.pulled++;
        const chunk = new Uint8Array(chunkSize).fill(0x61); // "a": valid text
        controller.enqueue(chunk);
      },
      cancel() {
        stats.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, stats };
}
