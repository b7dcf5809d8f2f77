/**
 * npm run rag:index — indexes the knowledge folder (RAG_KNOWLEDGE_DIR, default "knowledge", or the
 * first argument) into the database, incrementally by content hash, with a progress bar. For
 * PostgreSQL deployments (DATABASE_URL) that index at deploy time instead of at server start
 * (RAG_INDEX_ON_START=false). Without DATABASE_URL it uses the embedded database directory: stop the
 * dev server first, since only one process may open it. Exit code 1 when a file failed.
 */
import { SingleBar, Presets } from "cli-progress";
import { env, EnvError } from "@/lib/config/env";
import { closeDb, dbKind } from "@/lib/db/client";
import { indexKnowledge } from "@/lib/rag/index-knowledge";

async function main(): Promise<number> {
  try {
    env();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  const kind = await dbKind();
  const bar = new SingleBar(
    {
      format: "Indexing knowledge [{bar}] {value}/{total} files | {file}",
      hideCursor: true,
      clearOnComplete: false,
      stream: process.stdout,
    },
    Presets.shades_classic,
  );
  let started = false;
  const t0 = Date.now();
  const result = await indexKnowledge({
    dir: process.argv[2],
    onProgress: (p) => {
      if (!started) {
        bar.start(p.total, 0, { file: "" });
        started = true;
      }
      bar.update(p.done, { file: `${p.file} (${p.status})` });
    },
  });
  if (started) bar.stop();
  console.log(
    `Knowledge ${result.dir} -> ${kind}: ${result.files} files, ${result.indexed} indexed, ${result.unchanged} unchanged, ` +
      `${result.removed} removed, ${result.failed} failed; ${result.chunks} chunks, ${result.embedded} embedded (${Date.now() - t0} ms)`,
  );
  return result.failed > 0 ? 1 : 0;
}

main()
  .then(async (code) => {
    await closeDb();
    process.exit(code);
  })
  .catch(async (error) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`rag:index failed: ${message}`);
    if (/rag_documents|relation .* does not exist/i.test(message)) console.error("Run `npm run db:migrate` first.");
    await closeDb().catch(() => {});
    process.exit(1);
  });
