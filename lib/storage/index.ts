/** Public surface of the storage domain for other domains. */
export { readStoredObject } from "./read-stored-object";
export { deleteUserFiles } from "./delete-user-files";
export { objectStore, activeStorageKind, type ObjectStore, type StorageKind } from "./object-store";
export { sweepAbandonedUploads, ABANDONED_UPLOAD_AFTER_MS } from "./sweep-abandoned-uploads";
