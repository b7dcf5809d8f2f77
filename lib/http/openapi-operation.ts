import { z, type ZodType } from "zod";
import type { ErrorCode } from "@/lib/errors";
import { RATE_LIMIT_CATEGORIES } from "@/lib/ratelimit/categories";
import { aiSettings } from "@/lib/ai/settings";
import { CACHE } from "./cache";
import type { AuthMode, RouteSpec } from "./route-types";
import { STATUS_BY_CODE } from "./status";

/** One OpenAPI operation from a route's declaration (lib/http/openapi.ts builds the document). */
type Definition = RouteSpec<ZodType | undefined, ZodType | undefined, AuthMode>;
type JsonObject = Record<string, unknown>;

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
  403: "model_not_allowed or permission_denied: the key may not use this model or make this kind of call (also: account_locked, the account is locked and its keys suspended)",
  404: "model_not_found, or no such endpoint",
  429: "insufficient_quota (no credits, or the key's budget is spent; x-should-retry: false) or rate_limit_exceeded (Retry-After)",
};
export const ALL_CODES = Object.keys(STATUS_BY_CODE) as ErrorCode[];
const AI_ONLY: ErrorCode[] = ["content_policy"];
/** Codes only a route that calls an outside provider (AI, payments, email, storage) can answer. */
const PROVIDER_ONLY: ErrorCode[] = ["provider_not_configured", "upstream_failed"];
const PROVIDER_TAGS = new Set(["ai", "v1", "rag", "payments", "email", "files", "simulator", "auth"]);

/** The error codes an operation may answer with a status: those the status table maps to it, less what the route cannot produce. */
function codesFor(status: number, def: Definition): ErrorCode[] {
  const tags = def.tags ?? [];
  const ai = tags.some((t) => t === "ai" || t === "v1");
  const provider = tags.some((t) => PROVIDER_TAGS.has(t));
  return ALL_CODES.filter(
    (code) =>
      STATUS_BY_CODE[code] === status &&
      (code !== "feature_disabled" || Boolean(def.feature)) &&
      (ai || !AI_ONLY.includes(code)) &&
      (provider || !PROVIDER_ONLY.includes(code)),
  );
}

const errorResponse = (status: number, openai = false, codes: ErrorCode[] = []) => ({
  description: (openai ? OPENAI_STATUS_TEXT[status] : undefined) ?? STATUS_TEXT[status] ?? `Status ${status}`,
  content: {
    "application/json": {
      schema: openai
        ? openAiErrorRef
        : codes.length
          ? { allOf: [errorRef, { type: "object", properties: { code: { enum: codes } } }] }
          : errorRef,
    },
  },
});

const rateHeaders = {
  "X-RateLimit-Limit": { description: "Maximum requests in the window (the tighter of per-user and per-IP)", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests remaining in the window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Unix time (seconds) when the window resets", schema: { type: "integer" } },
};

const requestIdHeader = {
  description: "The request's id (the caller's x-request-id when sane, else a new UUID); logs carry it",
  schema: { type: "string" },
};

function operationId(method: string, apiPath: string): string {
  const words = apiPath
    .replace(/^\/api\//, "")
    .replace(/^\/v1\//, "v1/")
    .split(/[/{}-]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

/**
 * Request schemas as strict as the server: every free-text string refuses NUL characters (the
 * wrapper answers 400 for them anywhere in a body), and the AI endpoints' `model` lists the models
 * served, so generated clients do not send what is refused.
 */
function strictStrings(schema: JsonObject, models: string[] | null): JsonObject {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== "object") return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node as JsonObject)) out[k] = visit(v);
    // The chat endpoints' `model`: the models this configuration serves (AI_ALLOWED_MODELS).
    const props = out.properties as Record<string, JsonObject> | undefined;
    if (models && props?.model && props.model.type === "string") props.model = { ...props.model, enum: models, pattern: undefined };
    if (out.type === "string" && out.pattern === undefined && out.enum === undefined && out.const === undefined && out.format === undefined)
      out.pattern = "^[^\\u0000]*$";
    return out;
  };
  return visit(schema) as JsonObject;
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
  // A key limited to other models or kinds, or a locked account's (suspended) key.
  if (def.auth === "apiKey") statuses.add(403);
  // A locked account's session may read but not write.
  if ((def.auth === "session" || def.auth === "optional") && method !== "GET") statuses.add(403);
  // An operator route answers everyone else as a path no route serves.
  if (def.auth === "operator") statuses.add(404);
  // A malformed or unknown id names nothing (404); a disabled feature answers 404 too.
  if (def.feature || pathParams.length) statuses.add(404);
  if (def.rateLimit) statuses.add(429);
  if (def.successStatus) statuses.add(def.successStatus);
  // A body is read within its bound (413); a JSON body only as JSON (415).
  if (def.body || def.consumes) statuses.add(413);
  if (def.body && def.bodyFormat !== "form" && (!def.consumes || def.consumes === "application/json")) statuses.add(415);
  // A ranged download answers 206 (documented beside its 416).
  if (statuses.has(416)) statuses.add(206);
  statuses.add(405);
  statuses.add(500);

  const produced = def.produces === undefined ? ["application/json"] : Array.isArray(def.produces) ? def.produces : [def.produces];
  const successContent = Object.fromEntries(
    produced.map((type) => [
      type,
      {
        schema: type.startsWith("application/json")
          ? def.response
            ? jsonSchema(def.response, "output")
            : { type: "object" }
          : { type: "string" },
      },
    ]),
  );
  const cache = def.cache ? CACHE[def.cache] : CACHE.none;
  const responses: JsonObject = {};
  if (!def.successStatus) {
    responses["200"] = {
      description: STATUS_TEXT[200],
      headers: {
        "Cache-Control": produced.includes("text/event-stream")
          ? {
              description: "Caching of the success response: JSON as declared; an event stream is never stored",
              schema: { type: "string", enum: [...new Set([cache, "no-cache, no-transform"])] },
            }
          : { description: "Caching of the success response", schema: { type: "string", const: cache } },
        "X-Request-Id": requestIdHeader,
        ...(def.rateLimit ? rateHeaders : {}),
        ...Object.fromEntries(
          Object.entries(def.responseHeaders ?? {}).map(([name, description]) => [name, { description, schema: { type: "string" } }]),
        ),
      },
      content: successContent,
    };
  }
  const openai = def.dialect === "openai";
  for (const status of [...statuses].sort((a, b) => a - b)) {
    if (status === 200) continue;
    if (status === 206) {
      responses["206"] = {
        description: "Partial content: one `Range: bytes=` range",
        headers: { "Content-Range": { description: "bytes start-end/size", schema: { type: "string" } }, "X-Request-Id": requestIdHeader },
        content: successContent,
      };
      continue;
    }
    const codes = openai ? [] : codesFor(status, def);
    responses[String(status)] =
      status >= 300 && status < 400
        ? {
            description: STATUS_TEXT[status] ?? "Redirect",
            headers: { Location: { description: "Where the client goes next", schema: { type: "string" } } },
          }
        : status === 429
          ? {
              ...errorResponse(status, openai, codes),
              headers: {
                "Retry-After": { description: "Seconds until the window resets", schema: { type: "integer" } },
                ...rateHeaders,
                ...(openai
                  ? {
                      "x-should-retry": {
                        description: "false when no credits or budget are left: retrying cannot help",
                        schema: { type: "string" },
                      },
                    }
                  : {}),
                "X-Request-Id": requestIdHeader,
              },
            }
          : status === 405
            ? {
                ...errorResponse(status, openai, codes),
                headers: {
                  Allow: { description: "The methods this path answers", schema: { type: "string" } },
                  "X-Request-Id": requestIdHeader,
                },
              }
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
    op.requestBody = {
      required: true,
      content: {
        "application/json": {
          schema: strictStrings(jsonSchema(documented, "input"), def.tags?.includes("ai") ? aiSettings().allowedModels : null),
        },
      },
    };
  } else if (def.consumes) {
    const schema = documented
      ? strictStrings(jsonSchema(documented, "input"), def.tags?.includes("ai") ? aiSettings().allowedModels : null)
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
  // A preset's composed flags (v1Route: apiKeys and the route's own) name themselves.
  else if (def.feature && "flags" in def.feature) op["x-feature-flag"] = (def.feature as { flags: string[] }).flags.join(" & ");
  return op;
}
