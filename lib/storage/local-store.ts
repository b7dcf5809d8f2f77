import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { env } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import type { ObjectStore } from "./object-store-types";
import { signLocalFileUrl } from "./signed-url";
import { isValidStorageKey } from "./storage-key";

export function localStorageRoot(): string {
  return path.resolve(/*turbopackIgnore: true*/ env().dataDir, "storage");
}

function objectPath(root: string, key: string): string {
  if (!isValidStorageKey(key)) throw new AppError("not_found", "File not found");
  return path.join(root, ...key.split("/"));
}

/** Local disk store under `${DATA_DIR}/storage` (the embedded default). */
export function localStore(): ObjectStore {
  const root = localStorageRoot();
  return {
    kind: "local",
    async put(key, body) {
      const target = objectPath(root, key);
      await mkdir(path.dirname(target), { recursive: true });
      // Written under a temporary name and renamed when complete: readers never see a partial object.
      const tmp = `${target}.${randomUUID()}.partial`;
      try {
        await pipeline(body, createWriteStream(tmp, { flags: "wx" }));
        await rename(tmp, target);
      } catch (error) {
        await rm(tmp, { force: true });
        throw error;
      }
    },
    async get(key, range) {
      const stream = createReadStream(objectPath(root, key), range ? { start: range.start, end: range.end } : undefined);
      await new Promise<void>((resolve, reject) => {
        stream.once("open", () => resolve());
        stream.once("error", (error: NodeJS.ErrnoException) =>
          reject(error.code === "ENOENT" ? new AppError("not_found", "File not found") : error),
        );
      });
      return stream;
    },
    async delete(key) {
      await rm(objectPath(root, key), { force: true });
    },
    async signedUrl(_key, options) {
      return signLocalFileUrl(options.baseUrl, options.fileId, options.ttlSeconds);
    },
    async sweepAbandonedUploads(startedBefore) {
      let removed = 0;
      const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isFile() || !entry.name.endsWith(".partial")) continue;
        const file = path.join(entry.parentPath, entry.name);
        const info = await stat(file).catch(() => null);
        if (info && info.mtime < startedBefore) {
          await rm(file, { force: true });
          removed++;
        }
      }
      return { removed };
    },
  };
}
