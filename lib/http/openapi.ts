import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ZodType } from "zod";
import type { AuthMode, NextRouteHandler, RouteSpec } from "./handler";
import { authPaths } from "./openapi-auth-paths";
import { ALL_CODES, operationFor } from "./openapi-operation";

export { operationFor } from "./openapi-operation";

/**
 * Builds the OpenAPI 3.1 document from the route declarations: every app/api/**\/route.ts is
 * imported and each exported method handler's `.definition` (set by route()/edgeRoute()) becomes an
 * operation. Handlers without a definition are methods()' 405 fillers (or next-auth's own handlers,
 * documented statically below). Used by `npm run openapi` (writes docs/openapi.json) and by the test
 * that fails when that file is stale.
 */
type Definition = RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>;
type JsonObject = Record<string, unknown>;

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export function routeFiles(apiDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "route.ts" || name === "route.js") out.push(full);
    }
  };
  walk(apiDir);
  return out;
}

/** app/api/files/[id]/route.ts -> /api/files/{id} (catch-all segments become one parameter). */
export function openApiPath(appDir: string, file: string): { path: string; params: string[] } {
  const rel = path
    .relative(appDir, path.dirname(file))
    .split(path.sep)
    .filter((s) => s && !/^\(.*\)$/.test(s));
  const params: string[] = [];
  const segments = rel.map((segment) => {
    const m = /^\[{1,2}(?:\.\.\.)?([^\]]+)\]{1,2}$/.exec(segment);
    if (!m) return segment;
    params.push(m[1]);
    return `{${m[1]}}`;
  });
  return { path: `/${segments.join("/")}`, params };
}

export interface OpenApiBuild {
  document: JsonObject;
  /** Route files that could not be imported (reported, not fatal to the other routes). */
  failures: Array<{ file: string; error: string }>;
}

/**
 * The public document has every endpoint but the operator API; the admin document (docs/openapi-admin.json)
 * has only /api/admin/*, which answers 404 to everyone but operators (docs/ADMIN.md).
 */
export type OpenApiAudience = "public" | "admin";
const isAdminPath = (apiPath: string) => apiPath === "/api/admin" || apiPath.startsWith("/api/admin/");

export async function buildOpenApiDocument(
  root = process.cwd(),
  version = "1.0.0",
  audience: OpenApiAudience = "public",
): Promise<OpenApiBuild> {
  const appDir = path.join(root, "app");
  const files = [...routeFiles(path.join(appDir, "api")), ...routeFiles(path.join(appDir, "v1"))]
    // The catch-all that answers unknown /v1 paths is not an operation.
    .filter((file) => !file.includes(`${path.sep}v1${path.sep}[...path]${path.sep}`))
    .filter((file) => isAdminPath(openApiPath(appDir, file).path) === (audience === "admin"));
  const paths: Record<string, JsonObject> = {};
  const failures: OpenApiBuild["failures"] = [];
  for (const file of files) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (error) {
      failures.push({ file: path.relative(root, file), error: (error as Error).message });
      continue;
    }
    const { path: apiPath, params } = openApiPath(appDir, file);
    const item: JsonObject = {};
    for (const method of METHODS) {
      const handler = mod[method] as NextRouteHandler | undefined;
      const def = handler?.definition;
      if (def) item[method.toLowerCase()] = operationFor(method, apiPath, params, def as Definition);
    }
    if (Object.keys(item).length) paths[apiPath] = item;
  }
  if (audience === "public") Object.assign(paths, authPaths());
  const sorted = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((p) => [p, paths[p]]),
  );
  const document = {
    openapi: "3.1.0",
    info:
      audience === "public"
        ? {
            title: "Subscription, Credits, AI and Storage Service API",
            version,
            description:
              "Generated from the route declarations by `npm run openapi`. Every error body is { error, code } (code: a stable reason; each operation lists the codes of each status), except the OpenAI-compatible API (/v1, tag v1), which answers OpenAI's { error: { message, type, code, param } } and takes an API key (Authorization: Bearer sk-...). Every response carries x-request-id. Rate limits: fixed one-hour windows per user and per IP (SPEC §8); API keys may add their own per-minute limit.",
          }
        : {
            title: "Operator API (admin only)",
            version,
            description:
              "The operator console's API (docs/ADMIN.md). Error bodies are { error, code }. Every endpoint answers 404, exactly as a path no route serves, to anyone but an operator: a signed-in user whose verified email is in ADMIN_EMAILS, or `Authorization: Bearer <ADMIN_API_TOKEN>`. Never cached. Every write needs a reason and is recorded in the audit log.",
          },
    servers: [{ url: "http://localhost:3000" }],
    tags: [
      ...new Set(
        Object.values(sorted).flatMap((item) =>
          Object.values(item as JsonObject).flatMap((op) => ((op as JsonObject).tags as string[]) ?? []),
        ),
      ),
    ]
      .sort()
      .map((name) => ({ name })),
    paths: sorted,
    components: {
      schemas: {
        Error: {
          type: "object",
          properties: {
            error: { type: "string", description: "Human-readable message" },
            code: {
              type: "string",
              enum: ALL_CODES,
              description: "Stable machine-readable reason; each operation lists the codes of each status",
            },
          },
          required: ["error", "code"],
          additionalProperties: false,
        },
        ...(audience === "public"
          ? {
              OpenAIError: {
                type: "object",
                description: "Errors of the /v1 API, in OpenAI's shape",
                properties: {
                  error: {
                    type: "object",
                    properties: {
                      message: { type: "string" },
                      type: { type: "string", description: "invalid_request_error, insufficient_quota, requests, server_error" },
                      code: {
                        type: ["string", "null"],
                        description:
                          "invalid_api_key, missing_api_key, key_in_url, model_not_found, model_not_allowed, permission_denied, insufficient_quota, rate_limit_exceeded, ...",
                      },
                      param: { type: ["string", "null"], description: "the request field at fault" },
                    },
                    required: ["message", "type", "code", "param"],
                  },
                },
                required: ["error"],
              },
            }
          : {}),
      },
      securitySchemes: {
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "next-auth.session-token",
          description: "next-auth JWT session (`__Secure-` prefixed on https)",
        },
        bearerSession: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "next-auth JWT",
          description: "The same session token as Authorization: Bearer",
        },
        ...(audience === "admin" ? { adminToken: { type: "http", scheme: "bearer", description: "ADMIN_API_TOKEN, for scripts" } } : {}),
        ...(audience === "public"
          ? {
              apiKey: {
                type: "http",
                scheme: "bearer",
                bearerFormat: "sk-...",
                description: "An API key from POST /api/keys (the /v1 API only)",
              },
            }
          : {}),
      },
    },
  };
  return { document, failures };
}

export function serializeOpenApi(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
