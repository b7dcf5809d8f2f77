import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildOpenApiDocument, openApiPath, operationFor, serializeOpenApi } from "@/lib/http/openapi";
import { rateLimitTable, withRateLimitTable } from "@/lib/http/rate-limit-table";

const root = process.cwd();
const version = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;

describe("OpenAPI document", () => {
  it.each([
    ["public", "openapi.json"],
    ["admin", "openapi-admin.json"],
  ] as const)(
    "docs/%s document (%s) is up to date with the route declarations (run `npm run openapi` when this fails)",
    async (audience, file) => {
      const { document, failures } = await buildOpenApiDocument(root, version, audience);
      expect(failures).toEqual([]);
      const current = readFileSync(path.join(root, "docs", file), "utf8");
      expect(current === serializeOpenApi(document), `docs/${file} is stale: run \`npm run openapi\``).toBe(true);
    },
    120_000,
  );

  it("docs/API-NOTES.md's rate-limit table is the one printed from the route declarations (run `npm run openapi` when this fails)", async () => {
    const documents = await Promise.all(
      (["public", "admin"] as const).map(
        async (audience) => (await buildOpenApiDocument(root, version, audience)).document as { paths: unknown },
      ),
    );
    const notes = readFileSync(path.join(root, "docs", "API-NOTES.md"), "utf8");
    const table = rateLimitTable(documents);
    expect(withRateLimitTable(notes, table) === notes, "docs/API-NOTES.md's rate-limit table is stale: run `npm run openapi`").toBe(true);
    // The dashboard's own reads spend nobody's SPEC allowance: the account switcher's, the usage chart's.
    const row = (category: string) => table.split("\n").find((line) => line.startsWith(`| ${category}`)) ?? "";
    expect(row("api")).not.toMatch(/\/api\/orgs|\/api\/account\/active|\/api\/usage/);
    expect(row("no request limit")).toContain("`GET /api/orgs`");
    expect(row("no request limit")).toContain("`GET /api/account/active`");
    expect(row("reports")).toContain("`GET /api/usage`");
  }, 120_000);

  it("keeps the operator API out of the public document and alone in the admin one", async () => {
    const pub = (await buildOpenApiDocument(root, version, "public")).document as { paths: Record<string, unknown> };
    const admin = (await buildOpenApiDocument(root, version, "admin")).document as {
      paths: Record<string, Record<string, Record<string, any>>>;
    };
    expect(Object.keys(pub.paths).filter((p) => p.startsWith("/api/admin"))).toEqual([]);
    expect(Object.keys(admin.paths).every((p) => p.startsWith("/api/admin/"))).toBe(true);
    expect(Object.keys(admin.paths)).toHaveLength(21);
    const adjust = admin.paths["/api/admin/users/{id}/credits"].post;
    expect(adjust.security).toEqual([{ sessionCookie: [] }, { adminToken: [] }]);
    expect(Object.keys(adjust.responses)).toEqual(["200", "400", "404", "405", "409", "413", "415", "429", "500"]);
    expect(adjust["x-rate-limit"]).toMatchObject({ category: "admin" });
  }, 120_000);

  it("describes the foundation endpoints from their declarations", async () => {
    const { document } = await buildOpenApiDocument(root, version);
    const paths = (document as { paths: Record<string, Record<string, Record<string, unknown>>> }).paths;
    expect((document as { openapi: string }).openapi).toBe("3.1.0");
    const status = paths["/api/user/status"].get;
    expect(Object.keys(status.responses as object)).toEqual(["200", "400", "401", "405", "429", "500"]);
    expect(status["x-rate-limit"]).toEqual({ category: "api", perUser: 100, perIp: 200, window: "1h" });
    expect(JSON.stringify(status.responses)).toContain("private, max-age=300");
    expect(paths["/api/health"].get.responses).toHaveProperty("503");
    expect(paths["/api/health"].post).toBeUndefined(); // 405 fillers are not operations
    expect(paths["/api/webhooks/identity"].post.security).toEqual([]);
    expect(paths["/api/auth/callback/dev"].post).toBeDefined();
  }, 120_000);

  it("maps file paths to OpenAPI paths", () => {
    const app = path.join(root, "app");
    expect(openApiPath(app, path.join(app, "api/files/[id]/route.ts"))).toEqual({ path: "/api/files/{id}", params: ["id"] });
    expect(openApiPath(app, path.join(app, "api/(group)/x/[...slug]/route.ts"))).toEqual({ path: "/api/x/{slug}", params: ["slug"] });
  });

  it.each(["openapi.json", "openapi-admin.json"])(
    "docs/%s is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)",
    async (file) => {
      const validator = new Validator();
      const result = await validator.validate(JSON.parse(readFileSync(path.join(root, "docs", file), "utf8")));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe("3.1");
    },
  );

  it("documents redirects, alternative media types and the statuses the wrapper answers by itself", () => {
    const redirect = operationFor("GET", "/api/go", [], { auth: "none", summary: "Go", successStatus: 302 }) as Record<string, any>;
    expect(Object.keys(redirect.responses)).toEqual(["302", "400", "405", "500"]);
    expect(redirect.responses["302"].headers.Location).toBeDefined();
    const both = operationFor("POST", "/api/ask", [], {
      auth: "session",
      summary: "Ask",
      produces: ["application/json", "text/event-stream"],
    }) as Record<string, any>;
    expect(Object.keys(both.responses["200"].content)).toEqual(["application/json", "text/event-stream"]);
  });

  it("turns a declaration into an operation: schemas, statuses, security, flags", () => {
    const op = operationFor("POST", "/api/things/{id}", ["id"], {
      auth: "session",
      rateLimit: "email",
      feature: "aiChat",
      summary: "Make a thing",
      errors: [402, 409],
      query: z.object({ dryRun: z.enum(["true", "false"]).optional() }),
      body: z.object({ name: z.string().min(1), size: z.number().int().max(10).optional() }),
      response: z.object({ id: z.string() }),
    }) as Record<string, any>;
    expect(op.operationId).toBe("postThingsId");
    expect(op.parameters).toEqual([
      { name: "id", in: "path", required: true, schema: { type: "string" } },
      { name: "dryRun", in: "query", required: false, schema: { type: "string", enum: ["true", "false"] } },
    ]);
    expect(op.requestBody.content["application/json"].schema).toMatchObject({ type: "object", required: ["name"] });
    // 403: a locked account's session may read but not write.
    expect(Object.keys(op.responses)).toEqual(["200", "400", "401", "402", "403", "404", "405", "409", "413", "415", "429", "500"]);
    expect(op.responses["200"].content["application/json"].schema).toMatchObject({ properties: { id: { type: "string" } } });
    expect(op.security).toEqual([{ sessionCookie: [] }, { bearerSession: [] }]);
    expect(op["x-feature-flag"]).toBe("aiChat");
  });

  it("documents what the server answers and accepts as strictly as it does: 206 and 413/415, stream caching, NUL-free strings, served models", async () => {
    const { document } = await buildOpenApiDocument(root, version);
    const paths = (document as { paths: Record<string, Record<string, Record<string, any>>> }).paths;
    expect(Object.keys(paths["/api/files/{id}/content"].get.responses)).toContain("206");
    for (const [p, m] of [
      ["/api/ai/chat", "post"],
      ["/api/email/send", "post"],
      ["/api/credits/preferences", "patch"],
    ]) {
      expect(Object.keys(paths[p][m].responses), p).toEqual(expect.arrayContaining(["413", "415"]));
    }
    expect(paths["/api/ai/rag/ask"].post.responses["200"].headers["Cache-Control"].schema.enum).toContain("no-cache, no-transform");
    const stream = paths["/api/ai/stream"].post.requestBody.content["application/json"].schema;
    expect(stream.properties.model.enum).toContain("gpt-4o-mini");
    expect(stream.properties.systemPrompt.pattern).toBe("^[^\\u0000]*$");
  }, 120_000);
});
