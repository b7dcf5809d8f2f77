import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { log } from "@/lib/log";
import { indexDocument } from "./index-document";

export const KNOWLEDGE_PREFIX = "knowledge:";
const KNOWLEDGE_EXTENSIONS = new Set([".md", ".markdown", ".txt", ".csv", ".json"]);

export interface KnowledgeProgress {
  /** Files handled so far, of `total`. */
  done: number;
  total: number;
  /** Path relative to the knowledge folder. */
  file: string;
  status: "indexed" | "unchanged" | "failed";
}

export interface KnowledgeIndexResult {
  dir: string;
  files: number;
  indexed: number;
  unchanged: number;
  removed: number;
  failed: number;
  chunks: number;
  embedded: number;
}

/**
 * The knowledge folder: RAG_KNOWLEDGE_DIR (default "knowledge"), relative to the working directory.
 * The default is a static path so the build traces (and ships) just that folder; a configured one is
 * chosen at run time and kept out of the trace, which would otherwise take in the whole project.
 */
export function knowledgeDir(): string {
  const configured = env().RAG_KNOWLEDGE_DIR;
  return configured ? path.resolve(/*turbopackIgnore: true*/ configured) : path.join(process.cwd(), "knowledge");
}

async function listFiles(root: string, dir = root): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(root, full)));
    else if (entry.isFile() && KNOWLEDGE_EXTENSIONS.has(path.extname(entry.name).toLowerCase()))
      out.push(path.relative(root, full).split(path.sep).join("/"));
  }
  return out;
}

/** A document's title: its first Markdown H1, else the file name without extension. */
export function documentTitle(text: string, fileName: string): string {
  const h1 = /^#\s+(.+?)\s*#*\s*$/m.exec(text);
  return (h1?.[1] ?? path.basename(fileName).replace(/\.[^.]+$/, "")).slice(0, 200);
}

/**
 * Indexes the shared knowledge folder into the database, incrementally: unchanged files (same
 * content hash) are skipped, changed ones re-chunked, and documents whose file disappeared removed.
 * Called at server start (RAG_INDEX_ON_START) and by `npm run rag:index`.
 */
export async function indexKnowledge(
  options: { dir?: string; onProgress?: (p: KnowledgeProgress) => void } = {},
): Promise<KnowledgeIndexResult> {
  const dir = options.dir ? path.resolve(/*turbopackIgnore: true*/ options.dir) : knowledgeDir();
  const exists = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!exists) log.warn("rag: the knowledge folder does not exist; shared knowledge is left as it is", { dir });
  const files = exists ? await listFiles(dir) : [];
  const result: KnowledgeIndexResult = {
    dir,
    files: files.length,
    indexed: 0,
    unchanged: 0,
    removed: 0,
    failed: 0,
    chunks: 0,
    embedded: 0,
  };
  let done = 0;
  for (const file of files) {
    let status: KnowledgeProgress["status"] = "failed";
    try {
      const text = await readFile(path.join(dir, file), "utf8");
      const ext = path.extname(file).toLowerCase();
      const outcome = await indexDocument({
        key: `${KNOWLEDGE_PREFIX}${file}`,
        userId: null,
        source: "knowledge",
        path: file,
        title: documentTitle(text, file),
        text,
        markdown: ext === ".md" || ext === ".markdown" || ext === ".txt",
      });
      status = outcome.status;
      result[outcome.status]++;
      result.chunks += outcome.chunks;
      result.embedded += outcome.embedded;
    } catch (error) {
      result.failed++;
      log.error("rag: indexing a knowledge file failed", { file, error });
    }
    options.onProgress?.({ done: ++done, total: files.length, file, status });
  }
  if (!exists) return result;
  const prisma = await db();
  const keep = files.map((f) => `${KNOWLEDGE_PREFIX}${f}`);
  const { count } = await prisma.ragDocument.deleteMany({
    where: { source: "knowledge", userId: null, key: { startsWith: KNOWLEDGE_PREFIX, notIn: keep } },
  });
  result.removed = count;
  return result;
}
