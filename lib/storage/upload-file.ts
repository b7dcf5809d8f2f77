import type { File } from "@/lib/generated/prisma/client";
import { Readable } from "node:stream";
import { pipeline } from "node:stream";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { AppError, isAppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { ALLOWED_TYPES, normalizeDeclaredType } from "./file-types";
import { objectStore } from "./object-store";
import { newStorageKey } from "./storage-key";
import { UploadInspector } from "./upload-inspector";

export interface UploadInput {
  userId: string;
  filename: string;
  filesize: number;
  filetype: string;
  body: ReadableStream<Uint8Array> | null;
}

/** The file name as shown back to the user: no directories, no control characters, at most 255 chars. */
export function cleanFileName(name: string): string {
  const base = name
    .split(/[\\/]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim();
  return base.slice(0, 255);
}

/**
 * Streams an upload into object storage and records it. Rejections before any byte is read: unknown
 * type (400), empty or oversized declaration (400 / 413). While streaming: content checks (400), the
 * size maximum (413, reading stops), byte count vs filesize (400). Afterwards: the same content from
 * the same owner is 409, a database failure is 503; both delete the stored object first.
 */
export async function uploadFile(input: UploadInput): Promise<File> {
  const maxBytes = env().UPLOAD_MAX_BYTES;
  const originalName = cleanFileName(input.filename);
  if (!originalName) throw new AppError("validation_failed", "filename is empty");
  const contentType = normalizeDeclaredType(input.filetype);
  if (!contentType) {
    throw new AppError("validation_failed", `Unsupported filetype ${input.filetype.slice(0, 100)}; allowed: ${ALLOWED_TYPES.join(", ")}`);
  }
  if (input.filesize === 0) throw new AppError("validation_failed", "filesize is 0: empty files are not accepted");
  if (input.filesize > maxBytes) {
    throw new AppError("payload_too_large", `filesize ${input.filesize} is over the maximum of ${maxBytes} bytes`);
  }
  if (!input.body) throw new AppError("validation_failed", "Request body is empty; send the file bytes as the body");

  const store = await objectStore();
  const storageKey = newStorageKey(input.userId);
  const inspector = new UploadInspector(contentType, input.filesize, maxBytes);
  const client: { error: unknown } = { error: null };
  const source = Readable.from(readRequestBody(input.body, client), { objectMode: false });
  // pipeline() propagates errors both ways: an inspector failure destroys the source (which cancels
  // the request body: reading stops); a broken client connection errors the inspector and so the
  // store's write.
  pipeline(source, inspector, () => undefined);

  const removeObject = async () => {
    try {
      await store.delete(storageKey);
    } catch (error) {
      log.error("could not delete stored object after a failed upload", { storageKey, error });
    }
  };

  try {
    await store.put(storageKey, inspector, { contentType });
  } catch (error) {
    await removeObject();
    if (inspector.failure) throw inspector.failure;
    if (client.error) throw new AppError("bad_request", "Upload interrupted before the whole body was received", { cause: client.error });
    throw isAppError(error) ? error : new AppError("upstream_failed", "Storing the file failed", { cause: error });
  }
  const inspected = inspector.result;
  if (!inspected) {
    await removeObject();
    throw inspector.failure ?? new AppError("internal", "Upload finished without a result");
  }

  let file;
  try {
    const prisma = await db();
    file = await prisma.file.create({
      data: {
        userId: input.userId,
        storageKey,
        storage: store.kind,
        originalName,
        size: inspected.size,
        contentType: inspected.contentType,
        sha256: inspected.sha256,
      },
    });
  } catch (error) {
    await removeObject();
    const code = (error as { code?: string }).code;
    if (code === "P2002") throw new AppError("conflict", "Duplicate file: you already uploaded a file with the same content");
    throw new AppError("unavailable", "Database unavailable; the file was not stored", { cause: error });
  }
  log.info("file uploaded", { userId: input.userId, fileId: file.id, size: file.size, contentType: file.contentType, storage: store.kind });
  return file;
}

/** Reads a request body, noting whether a failure came from the client side (not from us stopping). */
async function* readRequestBody(body: ReadableStream<Uint8Array>, client: { error: unknown }): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        client.error = error;
        throw error;
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // Stopped early (limit, content check, storage failure): cancel the rest of the request body.
    reader.cancel().catch(() => undefined);
  }
}
