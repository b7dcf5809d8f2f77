import type { Readable } from "node:stream";

export type StorageKind = "s3" | "local";

export interface SignedUrlOptions {
  /** File id (the local store signs app URLs by id). */
  fileId: string;
  originalName: string;
  contentType: string;
  ttlSeconds: number;
  /** Absolute origin of the app, for the local store's URLs. */
  baseUrl: string;
}

/**
 * Where file bytes live. Keys are random (see newStorageKey); the user's file name is never part of
 * one. Adapters: S3 (s3-store.ts, the only file importing the AWS SDK) and local disk (local-store.ts).
 */
export interface ObjectStore {
  kind: StorageKind;
  /** Streams `body` into the object, honouring backpressure; never buffers it whole. Rejects when body errors. */
  put(key: string, body: Readable, options: { contentType: string }): Promise<void>;
  /** The object's bytes (or one inclusive byte range of them) as a stream; AppError(not_found) when it does not exist. */
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Deletes the object; deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
  /** A short-lived address that reads the object (S3 presigned GET, or an app URL with an HMAC token). */
  signedUrl(key: string, options: SignedUrlOptions): Promise<string>;
  /**
   * Removes what uploads that never finished left behind (a process killed mid-upload cannot clean
   * up): local `.partial` files, open S3 multipart uploads. Only those started before `startedBefore`.
   */
  sweepAbandonedUploads(startedBefore: Date): Promise<{ removed: number }>;
}
