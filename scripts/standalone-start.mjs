// npm start: runs the standalone production server (<distDir>/standalone/server.js) in this process,
// as `next start` would from the project folder: the project's .env files are read, and relative
// paths in DATA_DIR, PGLITE_DATA_DIR and RAG_KNOWLEDGE_DIR mean the project folder, not the build
// output (server.js changes into its own directory, and the next build replaces that directory).
// Node.js is checked first (scripts/node-version.cjs).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
require("./node-version.cjs").refuseUnsupportedNode();

const root = process.cwd();
const distDir = process.env.NEXT_DIST_DIR || ".next";
const server = path.join(root, distDir, "standalone", "server.js");
if (!existsSync(server)) {
  console.error(`No standalone build in ${distDir}/standalone: run \`npm run build\` first.`);
  process.exit(1);
}
if (!existsSync(path.join(root, distDir, "standalone", distDir, "static"))) {
  console.error(`The standalone build lacks its static assets: run \`npm run build\` (it copies them after next build).`);
  process.exit(1);
}

const { loadEnvConfig } = require("@next/env");
loadEnvConfig(root, false, { info: () => {}, error: console.error });

// Production (npm start's default) keeps embedded data in .data-production, apart from `npm run dev`'s
// .data and its development sign-in accounts; the dev directory is refused unless asked for.
const production =
  (process.env.APP_ENV || (process.env.NODE_ENV && process.env.NODE_ENV !== "production" ? process.env.NODE_ENV : "production")) ===
  "production";
const devDataDir = path.resolve(root, ".data");
process.env.DATA_DIR = path.resolve(root, process.env.DATA_DIR || (production ? ".data-production" : ".data"));
if (production && !process.env.DATABASE_URL && process.env.DATA_DIR === devDataDir && process.env.ALLOW_DEV_DATA_DIR !== "true") {
  console.error(
    `DATA_DIR=${devDataDir} is the development data directory (npm run dev's accounts, files and mail): production would inherit them. ` +
      "Unset DATA_DIR (production then uses .data-production), point it elsewhere, or set ALLOW_DEV_DATA_DIR=true to use it on purpose.",
  );
  process.exit(1);
}
for (const name of ["PGLITE_DATA_DIR", "RAG_KNOWLEDGE_DIR"]) {
  const value = process.env[name];
  if (value && !value.startsWith("memory://")) process.env[name] = path.resolve(root, value);
}
if (!process.env.RAG_KNOWLEDGE_DIR && existsSync(path.join(root, "knowledge")))
  process.env.RAG_KNOWLEDGE_DIR = path.join(root, "knowledge");

await import(pathToFileURL(server).href);
