import type { Readable } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { contentDisposition } from "./content-disposition";
import type { ObjectStore } from "./object-store";

/** Multipart part size and parallel parts: at most PART_SIZE * QUEUE_SIZE bytes are in memory per upload. */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

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
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: options.contentType },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
      });
      // If the source stream fails (limit exceeded, content rejected, client gone) stop the upload.
      const onError = () => void upload.abort().catch(() => undefined);
      body.once("error", onError);
      try {
        await upload.done();
      } finally {
        body.off("error", onError);
      }
    },
    async get(key) {
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
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
