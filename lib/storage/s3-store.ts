import type { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  ListMultipartUploadsCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type CompletedPart,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { contentDisposition } from "./content-disposition";
import type { ObjectStore } from "./object-store-types";

/** Multipart part size (S3's minimum). An upload holds exactly two part buffers: 10 MB. */
const PART_SIZE = 5 * 1024 * 1024;

/**
 * S3 (or any S3-compatible service: S3_ENDPOINT + S3_FORCE_PATH_STYLE) adapter; the only file importing
 * the AWS SDK. Checksums only when required: otherwise streamed bodies are sent with aws-chunked
 * framing that S3-compatible servers store verbatim.
 */
export function s3Store(): ObjectStore {
  const e = env();
  const bucket = e.S3_BUCKET;
  if (!bucket) throw new AppError("misconfigured", "S3 storage is not configured (S3_BUCKET)");
  const client = new S3Client({
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
    credentials:
      e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
        : undefined,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  return {
    kind: "s3",
    async put(key, body, options) {
      await putStreamed(client, bucket, key, body, options.contentType);
    },
    async get(key, range) {
      try {
        const out = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
        );
        return out.Body as Readable;
      } catch (error) {
        if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) {
          throw new AppError("not_found", "File not found");
        }
        throw error;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async sweepAbandonedUploads(startedBefore) {
      // Also set a bucket lifecycle rule (AbortIncompleteMultipartUpload, docs/DEPLOY.md): this sweep
      // is the app's own guarantee where no rule exists.
      let removed = 0;
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      for (;;) {
        const page = await client.send(
          new ListMultipartUploadsCommand({ Bucket: bucket, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        );
        for (const upload of page.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId || !upload.Initiated || upload.Initiated >= startedBefore) continue;
          await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }));
          removed++;
        }
        if (!page.IsTruncated) break;
        keyMarker = page.NextKeyMarker;
        uploadIdMarker = page.NextUploadIdMarker;
      }
      return { removed };
    },
    async signedUrl(key, options) {
      return getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket: bucket,
          Key: key,
          ResponseContentType: options.contentType,
          ResponseContentDisposition: contentDisposition(options.originalName),
        }),
        { expiresIn: options.ttlSeconds },
      );
    },
  };
}

/**
 * Streams a body into S3 with bounded memory: bytes are copied into one of two preallocated part
 * buffers; while one part uploads the other fills, and reading waits (backpressure) until the previous
 * part is done. Under one part it is a single PutObject. (lib-storage's Upload concatenates and
 * re-slices parts, which under load kept several copies of each part alive.) On any error the
 * multipart upload is aborted, so no parts are left behind.
 */
async function putStreamed(client: S3Client, bucket: string, key: string, body: Readable, contentType: string): Promise<void> {
  const buffers = [Buffer.allocUnsafeSlow(PART_SIZE), Buffer.allocUnsafeSlow(PART_SIZE)];
  let current = 0;
  let filled = 0;
  let uploadId: string | undefined;
  const parts: CompletedPart[] = [];
  let inFlight: Promise<void> = Promise.resolve();

  const sendPart = async () => {
    if (!uploadId) {
      const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }));
      uploadId = created.UploadId;
    }
    const data = buffers[current].subarray(0, filled);
    const partNumber = parts.length + 1;
    parts.push({ PartNumber: partNumber });
    await inFlight; // the other buffer must be sent before it is refilled
    inFlight = client
      .send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: data,
          ContentLength: data.length,
        }),
      )
      .then((out) => {
        parts[partNumber - 1] = { PartNumber: partNumber, ETag: out.ETag };
      });
    inFlight.catch(() => undefined); // surfaced by the next await
    current ^= 1;
    filled = 0;
  };

  try {
    for await (const chunk of body) {
      const buf = chunk as Buffer;
      let offset = 0;
      while (offset < buf.length) {
        const n = Math.min(buf.length - offset, PART_SIZE - filled);
        buf.copy(buffers[current], filled, offset, offset + n);
        filled += n;
        offset += n;
        if (filled === PART_SIZE) await sendPart();
      }
    }
    if (!uploadId) {
      const data = buffers[current].subarray(0, filled);
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: data, ContentLength: data.length, ContentType: contentType }),
      );
      return;
    }
    if (filled > 0) await sendPart();
    await inFlight;
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
    );
  } catch (error) {
    await inFlight.catch(() => undefined);
    if (uploadId) {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    }
    throw error;
  }
}
