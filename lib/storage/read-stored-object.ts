import { AppError } from "@/lib/errors";
import { objectStore, type StorageKind } from "./object-store";

/**
 * Reads a stored object into memory, at most `maxBytes` (AppError payload_too_large beyond, read stops
 * there). For small text-like files (RAG indexing); downloads stream instead. `storage` is the file
 * record's store (defaults to the active one).
 */
export async function readStoredObject(storageKey: string, maxBytes: number, storage?: StorageKind): Promise<Buffer> {
  const store = await objectStore(storage);
  const stream = await store.get(storageKey);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      total += buf.length;
      if (total > maxBytes) throw new AppError("payload_too_large", `Stored object is larger than ${maxBytes} bytes`);
      chunks.push(buf);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, total);
}
