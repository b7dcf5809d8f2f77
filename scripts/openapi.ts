/**
 * npm run openapi — writes docs/openapi.json (the public API) and docs/openapi-admin.json (the
 * operator API) as OpenAPI 3.1 from the route declarations of every app/api/**\/route.ts (see
 * lib/http/openapi.ts). `--check` only compares and exits 1 when either is stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildOpenApiDocument, serializeOpenApi } from "@/lib/http/openapi";

async function main(): Promise<number> {
  const root = process.cwd();
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  let code = 0;
  for (const [audience, file] of [["public", "openapi.json"], ["admin", "openapi-admin.json"]] as const) {
    const { document, failures } = await buildOpenApiDocument(root, pkg.version, audience);
    for (const f of failures) console.error(`cannot import ${f.file}: ${f.error}`);
    if (failures.length) return 1;
    const out = path.join(root, "docs", file);
    const text = serializeOpenApi(document);
    const paths = Object.keys((document as { paths: object }).paths).length;
    if (process.argv.includes("--check")) {
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
  return code;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
