/**
 * RAG retrieval benchmark: p50/p99 latency of one question's retrieval with 10,000 chunks indexed,
 * through lib/rag's own queries (fullTextSearch, vectorSearch, fuseByRank), on the embedded database
 * (PGlite, in memory, with pgvector + HNSW) and on PostgreSQL (TEST_DATABASE_URL; full-text only when
 * the server has no pgvector, hybrid too when it has). Appends/replaces the "RAG retrieval" section of
 * docs/BENCHMARKS.md.
 *
 *   npx tsx bench/rag-retrieval.ts                        (PGlite; PostgreSQL too when TEST_DATABASE_URL is set)
 *   eval "$(scripts/test-services.sh env)"; npx tsx bench/rag-retrieval.ts
 *   env: BENCH_CHUNKS (default 10000), BENCH_QUERIES per measurement (default 300), BENCH_NO_WRITE=1
 *
 * The corpus: the shipped knowledge chunks (shared) plus synthetic chunks (~115 words drawn from the
 * knowledge vocabulary and generated words, Zipf-like), spread over 100 documents: 20 shared, 80
 * private to 40 users. Questions are the 48 evaluation questions, asked as one of those users (shared
 * + own scope). Query vectors come from the local bag-of-words embedder (the provider's embedding call
 * is network time and is not part of these numbers).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freshPostgres } from "./lib/fresh-postgres";

process.env.LOG_LEVEL ??= "warn";
process.env.DATA_DIR ??= mkdtempSync(path.join(os.tmpdir(), "bench-rag-"));
process.env.RAG_INDEX_ON_START = "false";
delete process.env.OPENAI_API_KEY;

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 300);
const WARMUP = 30;
const MODEL = "bench-bow-embedding";

type Lib = Awaited<ReturnType<typeof loadLib>>;
async function loadLib() {
  const [client, search, chunker, vec, stub, questions, knowledge, migrate] = await Promise.all([
    import("@/lib/db/client"),
    import("@/lib/rag/search-chunks"),
    import("@/lib/rag/chunk-text"),
    import("@/lib/rag/vector-support"),
    import("@/tests/rag-eval/bow-embeddings-stub"),
    import("@/tests/rag-eval/questions"),
    import("@/lib/rag/index-knowledge"),
    import("@/lib/db/migrate"),
  ]);
  return { ...client, ...search, ...chunker, ...vec, ...stub, ...questions, ...knowledge, ...migrate };
}

interface Row {
  id: string;
  documentId: string;
  userId: string | null;
  ordinal: number;
  content: string;
  tokens: number;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function buildCorpus(lib: Lib) {
  const { readdir, readFile } = await import("node:fs/promises");
  const dir = path.resolve("knowledge");
  const real: { title: string; path: string; chunks: { content: string; tokens: number }[] }[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".md")).sort()) {
    const text = await readFile(path.join(dir, file), "utf8");
    real.push({ title: lib.documentTitle(text, file), path: file, chunks: lib.chunkText(text) });
  }
  const vocabulary = Array.from(new Set(real.flatMap((d) => d.chunks.flatMap((c) => c.content.toLowerCase().match(/[a-z]{3,}/g) ?? []))));
  const random = rng(42);
  const syllables = ["ka", "lo", "mi", "ren", "tas", "vo", "qui", "zel", "dor", "phi", "an", "ux", "bel", "nor", "sti"];
  for (let i = 0; i < 4000; i++) {
    const n = 2 + Math.floor(random() * 3);
    vocabulary.push(Array.from({ length: n }, () => syllables[Math.floor(random() * syllables.length)]).join(""));
  }
  const zipf = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * Math.pow(random(), 2.2)))];
  const users = Array.from({ length: 40 }, () => randomUUID());
  const docs = Array.from({ length: 100 }, (_, i) => ({
    id: randomUUID(),
    userId: i < 20 ? null : users[(i - 20) % users.length],
    key: `bench:${i}`,
  }));
  const rows: Row[] = [];
  const ordinals = new Map<string, number>();
  const push = (docId: string, userId: string | null, content: string, tokens: number) => {
    const ordinal = ordinals.get(docId) ?? 0;
    ordinals.set(docId, ordinal + 1);
    rows.push({ id: randomUUID(), documentId: docId, userId, ordinal, content, tokens });
  };
  // The real knowledge chunks live in the 8 first shared documents.
  real.forEach((d, i) => d.chunks.forEach((c) => push(docs[i].id, null, c.content, c.tokens)));
  while (rows.length < CHUNKS) {
    const doc = docs[Math.floor(random() * docs.length)];
    const words = Array.from({ length: 90 + Math.floor(random() * 50) }, zipf);
    const sentences: string[] = [];
    for (let i = 0; i < words.length; i += 12) sentences.push(words.slice(i, i + 12).join(" ") + ".");
    const content = sentences.join(" ");
    push(doc.id, doc.userId, content, Math.round(content.length / 4.2));
  }
  return { users, docs, rows, realTitles: real.map((d) => d.title) };
}

async function load(lib: Lib, corpus: Awaited<ReturnType<typeof buildCorpus>>, withVectors: boolean) {
  const prisma = await lib.db();
  await prisma.user.createMany({ data: corpus.users.map((id) => ({ id, email: `${id}@bench.example.com` })) });
  await prisma.ragDocument.createMany({
    data: corpus.docs.map((d, i) => ({
      id: d.id,
      key: d.key,
      userId: d.userId,
      source: d.userId ? "upload" : "knowledge",
      title: corpus.realTitles[i] ?? `Document ${i}`,
      path: d.userId ? null : `bench-${i}.md`,
      contentHash: "bench",
    })),
  });
  let t = performance.now();
  for (let i = 0; i < corpus.rows.length; i += 250) {
    const params: unknown[] = [];
    const values = corpus.rows.slice(i, i + 250).map((r) => {
      params.push(r.id, r.documentId, r.userId, r.ordinal, r.content, r.tokens);
      const n = params.length;
      return `($${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}::int, $${n - 1}, $${n}::int, to_tsvector('english', $${n - 1}))`;
    });
    await prisma.$executeRawUnsafe(
      `INSERT INTO rag_chunks (id, document_id, user_id, ordinal, content, tokens, search) VALUES ${values.join(", ")}`,
      ...params,
    );
  }
  const textMs = performance.now() - t;
  let vectorMs = 0;
  if (withVectors) {
    // Bulk load, then build the migration's HNSW index once (faster than maintaining it row by row).
    t = performance.now();
    await prisma.$executeRawUnsafe("DROP INDEX IF EXISTS rag_chunk_embeddings_hnsw_idx");
    for (let i = 0; i < corpus.rows.length; i += 100) {
      const params: unknown[] = [];
      const values = corpus.rows.slice(i, i + 100).map((r) => {
        params.push(r.id, MODEL, lib.vectorLiteral(lib.bowEmbedding(r.content).map((x) => Math.round(x * 1e5) / 1e5)));
        const n = params.length;
        return `($${n - 2}, $${n - 1}, $${n}::vector)`;
      });
      await prisma.$executeRawUnsafe(
        `INSERT INTO rag_chunk_embeddings (chunk_id, model, embedding) VALUES ${values.join(", ")}`,
        ...params,
      );
    }
    await prisma.$executeRawUnsafe(
      'CREATE INDEX rag_chunk_embeddings_hnsw_idx ON rag_chunk_embeddings USING hnsw ("embedding" vector_cosine_ops)',
    );
    vectorMs = performance.now() - t;
  }
  await prisma.$executeRawUnsafe("ANALYZE rag_chunks");
  if (withVectors) await prisma.$executeRawUnsafe("ANALYZE rag_chunk_embeddings");
  return { textMs, vectorMs };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function measure(name: string, op: (i: number) => Promise<unknown>) {
  for (let i = 0; i < WARMUP; i++) await op(i);
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    await op(i);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const result = { name, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
  console.log(`  ${name.padEnd(36)} p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  mean ${result.mean.toFixed(2)} ms`);
  return result;
}

async function runSuite(lib: Lib, label: string, corpus: Awaited<ReturnType<typeof buildCorpus>>) {
  const prisma = await lib.db();
  const vectors = await lib.hasVectorSupport(prisma);
  const loadTimes = await load(lib, corpus, vectors);
  console.log(
    `${label}: ${corpus.rows.length} chunks loaded (text ${Math.round(loadTimes.textMs)} ms${vectors ? `, vectors + HNSW ${Math.round(loadTimes.vectorMs)} ms` : ", no pgvector"})`,
  );
  const questions = lib.EVAL_QUESTIONS.map((q) => q.question);
  const qVectors = questions.map((q) => lib.bowEmbedding(q));
  const scope = (i: number) => ({ userId: corpus.users[i % corpus.users.length], limit: 20 });
  // Sanity: the scope filter holds and the knowledge answers come back.
  const sample = await lib.fullTextSearch(prisma, questions[0], scope(0));
  if (sample.length === 0) throw new Error("full-text search returned nothing");
  if (process.env.BENCH_EXPLAIN === "1" && vectors) {
    const plan = await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL hnsw.ef_search = 200");
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      return tx.$queryRawUnsafe<Record<string, string>[]>(
        `EXPLAIN ANALYZE SELECT e.chunk_id FROM rag_chunk_embeddings e WHERE e.model = $2 ORDER BY e.embedding <=> $1::vector LIMIT 200`,
        lib.vectorLiteral(qVectors[0]),
        MODEL,
      );
    });
    console.log(plan.map((r) => Object.values(r)[0].slice(0, 160)).join("\n"));
  }
  const results = [await measure(`${label} full-text`, (i) => lib.fullTextSearch(prisma, questions[i % questions.length], scope(i)))];
  if (vectors) {
    results.push(await measure(`${label} vector (HNSW)`, (i) => lib.vectorSearch(prisma, qVectors[i % questions.length], MODEL, scope(i))));
    results.push(
      await measure(`${label} hybrid (both + RRF)`, async (i) => {
        const [text, vector] = await Promise.all([
          lib.fullTextSearch(prisma, questions[i % questions.length], scope(i)),
          lib.vectorSearch(prisma, qVectors[i % questions.length], MODEL, scope(i)),
        ]);
        return lib.fuseByRank([text, vector], 5);
      }),
    );
  }
  return { label, vectors, loadTimes, results };
}

async function main() {
  process.env.PGLITE_DATA_DIR = "memory://";
  delete process.env.DATABASE_URL;
  const lib = await loadLib();
  const corpus = await buildCorpus(lib);
  const avgTokens = Math.round(corpus.rows.reduce((s, r) => s + r.tokens, 0) / corpus.rows.length);
  console.log(
    `corpus: ${corpus.rows.length} chunks (~${avgTokens} tokens each), ${corpus.docs.length} documents, ${corpus.users.length} users; ${QUERIES} queries per measurement`,
  );

  const suites = [await runSuite(lib, "PGlite", corpus)];
  await lib.closeDb();

  const admin = process.env.TEST_DATABASE_URL;
  let pgVersion = "";
  if (admin) {
    const database = await freshPostgres(admin, "bench_rag");
    const probe = new pg.Client({ connectionString: database.url });
    await probe.connect();
    pgVersion = (await probe.query("SHOW server_version")).rows[0].server_version as string;
    await probe.end();
    process.env.DATABASE_URL = database.url;
    delete process.env.PGLITE_DATA_DIR;
    try {
      suites.push(await runSuite(lib, "PostgreSQL", corpus));
    } finally {
      await lib.closeDb();
      await database.drop();
    }
  } else {
    console.log("TEST_DATABASE_URL is not set: PostgreSQL skipped");
  }

  const rows = suites.flatMap((s) =>
    s.results.map((r) => `| ${r.name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.mean.toFixed(2)} |`),
  );
  const section = [
    "## RAG retrieval",
    "",
    `\`npx tsx bench/rag-retrieval.ts\` (${new Date().toISOString().slice(0, 10)}; ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}${pgVersion ? `, PostgreSQL ${pgVersion}` : ""}).`,
    `${corpus.rows.length.toLocaleString("en-US")} chunks (~${avgTokens} tokens each: the shipped knowledge plus synthetic text) in 100 documents, 20 shared and 80 private to 40 users;`,
    `each query is one of the 48 evaluation questions asked as one of those users (shared + own scope), top 20 candidates per ranker as in \`retrieveChunks\`;`,
    `${QUERIES} timed queries per row after ${WARMUP} warm-up queries, one at a time. Query embeddings come from a local bag-of-words embedder:`,
    "the provider's embedding call (network) is not included.",
    "",
    "| Database · retrieval | p50 ms | p99 ms | mean ms |",
    "|---|---|---|---|",
    ...rows,
    "",
    ...suites.map(
      (s) =>
        `- ${s.label}: loading took ${Math.round(s.loadTimes.textMs)} ms for chunks + tsvector${s.vectors ? ` and ${Math.round(s.loadTimes.vectorMs)} ms for 1536-dimension vectors into the HNSW index` : "; no pgvector on this server, so retrieval is full-text only (the app logs this once)"}.`,
    ),
    "",
  ].join("\n");
  if (process.env.BENCH_NO_WRITE !== "1") writeSection(section);
  else console.log(section);
}

function writeSection(section: string) {
  const file = path.join(process.cwd(), "docs", "BENCHMARKS.md");
  let text = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmarks\n\n";
  const start = text.indexOf("## RAG retrieval");
  if (start >= 0) {
    const next = text.indexOf("\n## ", start + 1);
    text = text.slice(0, start) + section + (next >= 0 ? `\n${text.slice(next + 1)}` : "");
  } else {
    text = `${text.replace(/\n*$/, "\n\n")}${section}`;
  }
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

main()
  .then(() => process.exit(0))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
