import { env, EnvError } from "@/lib/config/env";
import { log } from "@/lib/log";

/**
 * What a Node server process does once at start (called by instrumentation.ts):
 * validates the environment (exit 1 with the list of problems), opens (and on the embedded default
 * migrates) the database, and starts the RAG knowledge indexing in the background.
 */
export async function startServer(options: { exit?: (code: number) => never } = {}): Promise<void> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  try {
    env();
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`${error.message}\nFix these settings (see .env.example) and start again.`);
      exit(1);
      return;
    }
    throw error;
  }

  const started = Date.now();
  try {
    const { db, dbKind } = await import("@/lib/db/client");
    await db();
    log.info("database ready", { kind: await dbKind(), ms: Date.now() - started });
  } catch (error) {
    // Not fatal: /api/health answers 503 and names the database as disconnected until it recovers.
    log.error("database unavailable at start-up", { error: (error as Error).message });
  }

  if (env().RAG_INDEX_ON_START) void indexKnowledgeInBackground();
  void sweepUploadsInBackground();
}

/** Uploads a killed process left unfinished (lib/storage/sweep-abandoned-uploads.ts). */
async function sweepUploadsInBackground(): Promise<void> {
  try {
    const { sweepAbandonedUploads } = await import("@/lib/storage");
    await sweepAbandonedUploads({ atStartup: true });
  } catch (error) {
    log.error("sweeping abandoned uploads failed", { error: (error as Error).message });
  }
}

async function indexKnowledgeInBackground(): Promise<void> {
  const started = Date.now();
  try {
    const rag = await import("@/lib/rag/index-knowledge");
    const result = await rag.indexKnowledge();
    log.info("knowledge indexed", { ms: Date.now() - started, result: summarize(result) });
  } catch (error) {
    log.error("knowledge indexing failed", { error: (error as Error).message });
  }
}

function summarize(result: unknown): unknown {
  if (result && typeof result === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(result)) if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") out[k] = v;
    return out;
  }
  return undefined;
}
