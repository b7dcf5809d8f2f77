// Runs after `next build` (npm run build): completes the standalone server in <distDir>/standalone
// the way Next.js documents it (static assets and public/ copied beside server.js), then checks that
// every file the server reads from disk at run time was traced into it, so a server that would fail
// on its first database open, migration or PDF upload never leaves the build.
import { cpSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const root = process.cwd();
const distDir = process.env.NEXT_DIST_DIR || ".next";
const standalone = path.join(root, distDir, "standalone");

if (!existsSync(path.join(standalone, "server.js"))) {
  console.error(
    `standalone: ${path.relative(root, standalone)}/server.js is missing; run \`next build\` first (next.config.ts sets output: "standalone").`,
  );
  process.exit(1);
}

const copies = [
  [path.join(root, distDir, "static"), path.join(standalone, distDir, "static")],
  [path.join(root, "public"), path.join(standalone, "public")],
];
for (const [from, to] of copies) {
  if (!existsSync(from)) continue;
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
}

// The migration command of the image (`node scripts/db-migrate.mjs`): scripts/db-migrate.ts bundled,
// using the database drivers the server already ships.
await build({
  entryPoints: [path.join(root, "scripts", "db-migrate.ts")],
  outfile: path.join(standalone, "scripts", "db-migrate.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["pg", "@electric-sql/pglite", "@electric-sql/pglite-pgvector"],
  logLevel: "warning",
});

// An operator's first sign-in link in the image (`node scripts/admin-sign-in-link.mjs you@example.com`):
// scripts/admin-sign-in-link.ts bundled; it needs no database.
await build({
  entryPoints: [path.join(root, "scripts", "admin-sign-in-link.ts")],
  outfile: path.join(standalone, "scripts", "admin-sign-in-link.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  external: ["@next/env"],
  logLevel: "warning",
});

// server.js validates the configuration before Next.js starts (scripts/preflight.ts): Next's own
// server.js (kept as next-server.js) prints "Ready" before instrumentation runs, so a server that
// is about to exit on a bad configuration would first look healthy.
await build({
  entryPoints: [path.join(root, "scripts", "preflight.ts")],
  outfile: path.join(standalone, "preflight.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  // prom-client from the server's node_modules: the one copy the app's routes use, so its registry is
  // the process's (a worker of WEB_CONCURRENCY answers the primary's metrics requests from it).
  external: ["@next/env", "prom-client"],
  logLevel: "warning",
});
const WRAPPER_MARK = "// standalone-prepare: preflight wrapper";
const serverJs = path.join(standalone, "server.js");
if (!readFileSync(serverJs, "utf8").startsWith(WRAPPER_MARK)) {
  renameSync(serverJs, path.join(standalone, "next-server.js"));
  writeFileSync(
    serverJs,
    `${WRAPPER_MARK}\n// Validates the environment (exit 1 with every problem listed), then starts Next.js (with WEB_CONCURRENCY,\n// in each server process the preflight forks, not in the primary).\nif (require("./preflight.cjs").startsNext) require("./next-server.js");\n`,
  );
}

const count = (dir, test = () => true) =>
  existsSync(dir) ? readdirSync(dir, { recursive: true }).filter((n) => test(String(n))).length : 0;
const migrations = count(path.join(root, "prisma", "migrations"), (n) => n.endsWith("migration.sql"));
const functions = count(path.join(root, "prisma", "functions"), (n) => n.endsWith(".sql"));
const knowledge = count(path.join(root, "knowledge"));
const required = [
  ["server.js", 1],
  ["next-server.js", 1],
  ["preflight.cjs", 1],
  ["node_modules/@next/env/package.json", 1],
  [`${distDir}/static`, 1],
  [
    "prisma/migrations (every migration.sql)",
    migrations,
    () => count(path.join(standalone, "prisma", "migrations"), (n) => n.endsWith("migration.sql")),
  ],
  [
    "prisma/functions (every function's file)",
    functions,
    () => count(path.join(standalone, "prisma", "functions"), (n) => n.endsWith(".sql")),
  ],
  ["knowledge (every shipped document)", knowledge, () => count(path.join(standalone, "knowledge"))],
  ["node_modules/@electric-sql/pglite/dist/pglite.wasm", 1],
  ["node_modules/@electric-sql/pglite/dist/pglite.data", 1],
  ["node_modules/@electric-sql/pglite/dist/initdb.wasm", 1],
  ["node_modules/@electric-sql/pglite-pgvector/dist/vector.tar.gz", 1],
  ["node_modules/unpdf/dist/pdfjs.mjs", 1],
  ["node_modules/pg/package.json", 1],
  ["node_modules/prom-client/package.json", 1],
  ["scripts/db-migrate.mjs", 1],
  ["scripts/admin-sign-in-link.mjs", 1],
];
const missing = [];
for (const [name, expected, actual] of required) {
  const found = actual ? actual() : existsSync(path.join(standalone, name.split(" ")[0])) ? 1 : 0;
  if (found < expected) missing.push(`${name}: found ${found} of ${expected}`);
}
if (missing.length > 0) {
  console.error(
    `standalone: the server in ${path.relative(root, standalone)} lacks files it reads at run time:\n${missing.map((m) => `  - ${m}`).join("\n")}`,
  );
  process.exit(1);
}
console.log(
  `standalone: ${path.relative(root, standalone)} is complete (${migrations} migrations, ${functions} database functions, ${knowledge} knowledge files, PGlite and pdf.js assets); start it with \`npm start\`.`,
);
