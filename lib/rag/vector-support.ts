import type { Db } from "@/lib/db/client";
import { log } from "@/lib/log";

/** Dimensions of rag_chunk_embeddings.embedding (migration 20261122000100_rag_vector). */
export const EMBEDDING_DIMENSIONS = 1536;

const checked = new WeakMap<object, Promise<boolean>>();
let loggedAbsent = false;

/**
 * Whether this database has the pgvector table (created by the migration only where the `vector`
 * extension exists: PGlite and managed PostgreSQL yes, Debian's PostgreSQL no). Checked once per
 * client; its absence is logged once per process.
 */
export function hasVectorSupport(prisma: Db): Promise<boolean> {
  let result = checked.get(prisma);
  if (!result) {
    result = prisma
      .$queryRawUnsafe<{ ok: boolean }[]>("SELECT to_regclass('rag_chunk_embeddings') IS NOT NULL AS ok")
      .then((rows) => Boolean(rows[0]?.ok))
      .then((ok) => {
        if (!ok && !loggedAbsent) {
          loggedAbsent = true;
          log.warn(
            'rag: pgvector is not installed on this PostgreSQL, so knowledge search matches words only: a question worded differently from the document (synonyms, another language) finds nothing. Install pgvector (docs/DEPLOY.md, "PostgreSQL and Redis on your machine") and run npm run db:migrate',
          );
        }
        return ok;
      });
    checked.set(prisma, result);
    result.catch(() => checked.delete(prisma));
  }
  return result;
}

/** pgvector's text form of a vector: "[0.1,0.2,...]". */
export function vectorLiteral(vector: number[]): string {
  return `[${vector.map((x) => (Number.isFinite(x) ? x : 0)).join(",")}]`;
}
