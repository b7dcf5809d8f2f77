import { env } from "@/lib/config/env";
import type { ObjectStore, StorageKind } from "./object-store-types";
import { processState } from "@/lib/process-state";

export type { ObjectStore, SignedUrlOptions, StorageKind } from "./object-store-types";

const stores = processState("objectStores", () => new Map<string, Promise<ObjectStore>>());

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
  const key = storeConfigKey(kind);
  let store = stores.get(key);
  if (!store) {
    store = (kind === "s3" ? import("./s3-store").then((m) => m.s3Store()) : import("./local-store").then((m) => m.localStore())).catch(
      (error) => {
        stores.delete(key);
        throw error;
      },
    );
    stores.set(key, store);
  }
  return store;
}
