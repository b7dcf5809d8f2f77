import type { Readable } from "node:stream";
import { env } from "@/lib/config/env";

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

const cache = globalThis as unknown as { __objectStores?: Map<string, Promise<ObjectStore>> };

function storeConfigKey(kind: StorageKind): string {
  const e = env();
  return kind === "s3"
    ? ["s3", e.S3_BUCKET, e.S3_REGION, e.S3_ENDPOINT, e.S3_ACCESS_KEY_ID, e.S3_SECRET_ACCESS_KEY, e.S3_FORCE_PATH_STYLE].join("|")
    : ["local", e.dataDir].join("|");
}

/** The store new uploads go to: S3 when S3_BUCKET is set, otherwise local disk under `${DATA_DIR}/storage`. */
export function activeStorageKind(): StorageKind {
  return env().S3_BUCKET ? "s3" : "local";
}

/** The store of a kind (a file record says which store holds it), built once per configuration. */
export function objectStore(kind: StorageKind = activeStorageKind()): Promise<ObjectStore> {
  cache.__objectStores ??= new Map();
  const key = storeConfigKey(kind);
  let store = cache.__objectStores.get(key);
  if (!store) {
    store = (kind === "s3" ? import("./s3-store").then((m) => m.s3Store()) : import("./local-store").then((m) => m.localStore())).catch(
      (error) => {
        cache.__objectStores?.delete(key);
        throw error;
      },
    );
    cache.__objectStores.set(key, store);
  }
  return store;
}
