/**
 * npm run openapi — writes docs/openapi.json (the public API) and docs/openapi-admin.json (the
 * operator API) as OpenAPI 3.1 from the route declarations of every app/api/**\/route.ts (see
 * lib/http/openapi.ts), and prints the rate-limit table of docs/API-NOTES.md from them
 * (lib/http/rate-limit-table.ts). `--check` only compares and exits 1 when any is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildOpenApiDocument, serializeOpenApi } from "@/lib/http/openapi";
import { rateLimitTable, withRateLimitTable } from "@/lib/http/rate-limit-table";

async function main(): Promise<number> {
  const root = process.cwd();
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  let code = 0;
  const check = process.argv.includes("--check");
  const documents: Array<{ paths: unknown }> = [];
  for (const [audience, file] of [
    ["public", "openapi.json"],
    ["admin", "openapi-admin.json"],
  ] as const) {
    const { document, failures } = await buildOpenApiDocument(root, pkg.version, audience);
    documents.push(document as { paths: unknown });
    for (const f of failures) console.error(`cannot import ${f.file}: ${f.error}`);
    if (failures.length) return 1;
    const out = path.join(root, "docs", file);
    const text = serializeOpenApi(document);
    const paths = Object.keys((document as { paths: object }).paths).length;
    if (check) {
      let current = "";
      try {
        current = readFileSync(out, "utf8");
      } catch {
        // missing counts as stale
      }
      if (current !== text) {
        console.error(`docs/${file} is stale: run \`npm run openapi\``);
        code = 1;
      } else console.log(`docs/${file} is up to date (${paths} paths)`);
      continue;
    }
    writeFileSync(out, text);
    console.log(`wrote docs/${file} (${paths} paths)`);
  }
  const notesFile = path.join(root, "docs", "API-NOTES.md");
  const notes = readFileSync(notesFile, "utf8");
  const printed = withRateLimitTable(notes, rateLimitTable(documents));
  if (check) {
    if (printed !== notes) {
      console.error("docs/API-NOTES.md's rate-limit table is stale: run `npm run openapi`");
      code = 1;
    } else console.log("docs/API-NOTES.md's rate-limit table is up to date");
  } else if (printed !== notes) {
    writeFileSync(notesFile, printed);
    console.log("wrote docs/API-NOTES.md's rate-limit table");
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
