import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z, type ZodType } from "zod";
import type { ErrorCode } from "@/lib/errors";
import { RATE_LIMIT_CATEGORIES } from "@/lib/ratelimit/categories";
import { CACHE } from "./cache";
import type { AuthMode, NextRouteHandler, RouteSpec } from "./handler";
import { STATUS_BY_CODE } from "./status";

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

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  302: "Found: redirect to the Location header",
  303: "See Other: redirect to the Location header",
  400: "Bad request: validation failed (the message names the field)",
  401: "Unauthorized: missing or invalid session or signature",
  402: "Payment required: insufficient credits",
  403: "Forbidden (also: the account is locked, which only reads may use)",
  404: "Not found (also: feature disabled by flag)",
  405: "Method not allowed (Allow header lists the methods)",
  409: "Conflict",
  413: "Payload too large",
  429: "Too many requests: rate limit exceeded (Retry-After, X-RateLimit-* headers)",
  500: "Internal server error",
  503: "Service unavailable",
};

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
  const rel = path.relative(appDir, path.dirname(file)).split(path.sep).filter((s) => s && !/^\(.*\)$/.test(s));
  const params: string[] = [];
  const segments = rel.map((segment) => {
    const m = /^\[{1,2}(?:\.\.\.)?([^\]]+)\]{1,2}$/.exec(segment);
    if (!m) return segment;
    params.push(m[1]);
    return `{${m[1]}}`;
  });
  return { path: `/${segments.join("/")}`, params };
}

function jsonSchema(schema: ZodType, io: "input" | "output"): JsonObject {
  try {
    const out = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as JsonObject;
    delete out.$schema;
    return out;
  } catch {
    return {};
  }
}

const errorRef = { $ref: "#/components/schemas/Error" };
const openAiErrorRef = { $ref: "#/components/schemas/OpenAIError" };
/** The /v1 API's statuses as OpenAI's SDKs read them (lib/http/openai-error.ts). */
const OPENAI_STATUS_TEXT: Record<number, string> = {
  400: "invalid_request_error: the message names the field, `param` is its path",
  401: "invalid_api_key: missing, unknown, revoked or expired key, or a key sent in the URL",
  403: "model_not_allowed or permission_denied: the key may not use this model or make this kind of call (also: the account is locked)",
  404: "model_not_found, or no such endpoint",
  429: "insufficient_quota (no credits, or the key's budget is spent; x-should-retry: false) or rate_limit_exceeded (Retry-After)",
};
const ALL_CODES = Object.keys(STATUS_BY_CODE) as ErrorCode[];
const AI_ONLY: ErrorCode[] = ["provider_not_configured", "upstream_failed", "content_policy", "unavailable"];

/** The error codes an operation may answer with a status: those the status table maps to it, less what the route cannot produce. */
function codesFor(status: number, def: Definition): ErrorCode[] {
  const ai = (def.tags ?? []).some((t) => t === "ai" || t === "v1");
  return ALL_CODES.filter(
    (code) => STATUS_BY_CODE[code] === status && (code !== "feature_disabled" || Boolean(def.feature)) && (ai || !AI_ONLY.includes(code) || code === "unavailable"),
  );
}

const errorResponse = (status: number, openai = false, codes: ErrorCode[] = []) => ({
  description: (openai ? OPENAI_STATUS_TEXT[status] : undefined) ?? STATUS_TEXT[status] ?? `Status ${status}`,
  content: {
    "application/json": {
      schema: openai ? openAiErrorRef : codes.length ? { allOf: [errorRef, { type: "object", properties: { code: { enum: codes } } }] } : errorRef,
    },
  },
});

const rateHeaders = {
  "X-RateLimit-Limit": { description: "Maximum requests in the window (the tighter of per-user and per-IP)", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests remaining in the window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Unix time (seconds) when the window resets", schema: { type: "integer" } },
};

const requestIdHeader = { description: "The request's id (the caller's x-request-id when sane, else a new UUID); logs carry it", schema: { type: "string" } };

function operationId(method: string, apiPath: string): string {
  const words = apiPath
    .replace(/^\/api\//, "")
    .replace(/^\/v1\//, "v1/")
    .split(/[/{}-]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

export function operationFor(method: string, apiPath: string, pathParams: string[], def: Definition): JsonObject {
  const parameters: JsonObject[] = pathParams.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
  if (def.query) {
    const schema = jsonSchema(def.query, "input");
    const props = (schema.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries(props)) {
      const { description, ...rest } = prop;
      parameters.push({ name, in: "query", required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }

  const statuses = new Set<number>(def.errors ?? []);
  // Statuses the wrapper and proxy answer on their own, from what the route declares.
  // Every route: the wrapper refuses NUL and unpaired surrogates in any query parameter (400).
  statuses.add(400);
  if (def.auth === "session" || def.auth === "apiKey") statuses.add(401);
  // A key limited to other models or kinds, or a locked account's key writing.
  if (def.auth === "apiKey" && method !== "GET") statuses.add(403);
  // A locked account's session may read but not write.
  if ((def.auth === "session" || def.auth === "optional") && method !== "GET") statuses.add(403);
  // An operator route answers everyone else as a path no route serves.
  if (def.auth === "operator") statuses.add(404);
  // A malformed or unknown id names nothing (404); a disabled feature answers 404 too.
  if (def.feature || pathParams.length) statuses.add(404);
  if (def.rateLimit) statuses.add(429);
  if (def.successStatus) statuses.add(def.successStatus);
  statuses.add(405);
  statuses.add(500);

  const produced = def.produces === undefined ? ["application/json"] : Array.isArray(def.produces) ? def.produces : [def.produces];
  const successContent = Object.fromEntries(
    produced.map((type) => [
      type,
      { schema: type.startsWith("application/json") ? (def.response ? jsonSchema(def.response, "output") : { type: "object" }) : { type: "string" } },
    ]),
  );
  const cache = def.cache ? CACHE[def.cache] : CACHE.none;
  const responses: JsonObject = {};
  if (!def.successStatus) {
    responses["200"] = {
      description: STATUS_TEXT[200],
      headers: {
        "Cache-Control": { description: "Caching of the success response", schema: { type: "string", const: cache } },
        "X-Request-Id": requestIdHeader,
        ...(def.rateLimit ? rateHeaders : {}),
        ...Object.fromEntries(Object.entries(def.responseHeaders ?? {}).map(([name, description]) => [name, { description, schema: { type: "string" } }])),
      },
      content: successContent,
    };
  }
  const openai = def.dialect === "openai";
  for (const status of [...statuses].sort((a, b) => a - b)) {
    if (status === 200) continue;
    const codes = openai ? [] : codesFor(status, def);
    responses[String(status)] =
      status >= 300 && status < 400
        ? { description: STATUS_TEXT[status] ?? "Redirect", headers: { Location: { description: "Where the client goes next", schema: { type: "string" } } } }
        : status === 429
          ? {
              ...errorResponse(status, openai, codes),
              headers: {
                "Retry-After": { description: "Seconds until the window resets", schema: { type: "integer" } },
                ...rateHeaders,
                ...(openai ? { "x-should-retry": { description: "false when no credits or budget are left: retrying cannot help", schema: { type: "string" } } } : {}),
                "X-Request-Id": requestIdHeader,
              },
            }
          : status === 405
            ? { ...errorResponse(status, openai, codes), headers: { Allow: { description: "The methods this path answers", schema: { type: "string" } }, "X-Request-Id": requestIdHeader } }
            : { ...errorResponse(status, openai, codes), headers: { "X-Request-Id": requestIdHeader } };
  }

  const op: JsonObject = {
    operationId: operationId(method, apiPath),
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags ?? [apiPath.split("/")[2] ?? "api"],
    ...(parameters.length ? { parameters } : {}),
  };
  const documented = def.bodyDoc ?? def.body;
  if (documented && (!def.consumes || def.consumes === "application/json")) {
    op.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(documented, "input") } } };
  } else if (def.consumes) {
    const schema = documented
      ? jsonSchema(documented, "input")
      : def.consumes === "application/json" || def.consumes.startsWith("multipart/")
        ? { type: "object" }
        : { type: "string", format: "binary" };
    op.requestBody = { required: true, content: { [def.consumes]: { schema } } };
  }
  op.responses = responses;
  op.security =
    def.auth === "session"
      ? [{ sessionCookie: [] }, { bearerSession: [] }]
      : def.auth === "optional"
        ? [{}, { sessionCookie: [] }, { bearerSession: [] }]
        : def.auth === "operator"
          ? [{ sessionCookie: [] }, { adminToken: [] }]
          : def.auth === "apiKey"
            ? [{ apiKey: [] }]
            : [];
  if (def.rateLimit) {
    const limits = RATE_LIMIT_CATEGORIES[def.rateLimit];
    op["x-rate-limit"] = { category: def.rateLimit, perUser: limits.perUser, perIp: limits.perIp, window: "1h" };
  }
  if (typeof def.feature === "string") op["x-feature-flag"] = def.feature;
  return op;
}

/** next-auth's endpoints (not declared with route()) that API clients use for the dev sign-in. */
function authPaths(): Record<string, JsonObject> {
  return {
    "/api/auth/csrf": {
      get: {
        operationId: "getAuthCsrf",
        summary: "CSRF token for sign-in (next-auth)",
        tags: ["auth"],
        responses: { "200": { description: "OK (sets the next-auth.csrf-token cookie)", content: { "application/json": { schema: { type: "object", properties: { csrfToken: { type: "string" } }, required: ["csrfToken"] } } } } },
        security: [],
      },
    },
    "/api/auth/callback/dev": {
      post: {
        operationId: "postAuthCallbackDev",
        summary: "Development sign-in by email (next-auth Credentials provider `dev`)",
        description: "Off in production unless AUTH_DEV_LOGIN=true. Send the csrf cookie from /api/auth/csrf. Creates the user with free-tier credits on first sign-in and sets the session cookie.",
        tags: ["auth"],
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: { type: "object", properties: { csrfToken: { type: "string" }, email: { type: "string", format: "email" }, json: { type: "string" } }, required: ["csrfToken", "email"] },
            },
          },
        },
        responses: { "200": { description: "Signed in (with json=true)" }, "302": { description: "Signed in, or redirected to /signin?error=... when refused" } },
        security: [],
      },
    },
    "/api/auth/session": {
      get: {
        operationId: "getAuthSession",
        summary: "Current session (next-auth)",
        tags: ["auth"],
        responses: {
          "200": {
            description: "The session, or {} when signed out (no session needed)",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: {
                    user: { type: "object", properties: { id: { type: "string" }, email: { type: ["string", "null"] } } },
                    expires: { type: "string", format: "date-time" },
                  },
                },
              },
            },
          },
        },
        security: [{}, { sessionCookie: [] }],
      },
    },
  };
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

export async function buildOpenApiDocument(root = process.cwd(), version = "1.0.0", audience: OpenApiAudience = "public"): Promise<OpenApiBuild> {
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
  const sorted = Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]]));
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
    tags: [...new Set(Object.values(sorted).flatMap((item) => Object.values(item as JsonObject).flatMap((op) => ((op as JsonObject).tags as string[]) ?? [])))]
      .sort()
      .map((name) => ({ name })),
    paths: sorted,
    components: {
      schemas: {
        Error: {
          type: "object",
          properties: {
            error: { type: "string", description: "Human-readable message" },
            code: { type: "string", enum: ALL_CODES, description: "Stable machine-readable reason; each operation lists the codes of each status" },
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
                      code: { type: ["string", "null"], description: "invalid_api_key, missing_api_key, key_in_url, model_not_found, model_not_allowed, permission_denied, insufficient_quota, rate_limit_exceeded, ..." },
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
        sessionCookie: { type: "apiKey", in: "cookie", name: "next-auth.session-token", description: "next-auth JWT session (`__Secure-` prefixed on https)" },
        bearerSession: { type: "http", scheme: "bearer", bearerFormat: "next-auth JWT", description: "The same session token as Authorization: Bearer" },
        ...(audience === "admin" ? { adminToken: { type: "http", scheme: "bearer", description: "ADMIN_API_TOKEN, for scripts" } } : {}),
        ...(audience === "public" ? { apiKey: { type: "http", scheme: "bearer", bearerFormat: "sk-...", description: "An API key from POST /api/keys (the /v1 API only)" } } : {}),
      },
    },
  };
  return { document, failures };
}

export function serializeOpenApi(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
