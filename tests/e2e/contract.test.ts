import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { Client } from "./client";

/**
 * docs/openapi.json is the truth: every operation it lists is called on the running production
 * server, anonymously and signed in, with a request generated from its own schemas (positive) and
 * with a wrong-typed body (negative). Every answer must use a status the operation documents, a media
 * type documented for that status, and a JSON body that validates against the documented schema.
 */
const baseUrl = inject("baseUrl");
type Json = Record<string, any>;
const doc = JSON.parse(readFileSync(path.join(process.cwd(), "docs", "openapi.json"), "utf8")) as Json;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: "openapi", components: doc.components, paths: doc.paths });
const pointer = (...parts: string[]) => `openapi#/${parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

function resolve(schema: Json | undefined): Json | undefined {
  if (!schema?.$ref) return schema;
  const parts = String(schema.$ref).replace(/^#\//, "").split("/");
  return parts.reduce((node: Json, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

/** A value valid for a JSON schema, as small as possible. */
function sample(input: Json | undefined, depth = 0): unknown {
  const schema = resolve(input);
  if (!schema || depth > 8) return undefined;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return sample(union[0], depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Json) => sample(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Json = {};
      for (const key of (schema.required as string[] | undefined) ?? [])
        out[key] = sample(schema.properties?.[key], depth + 1) ?? "example";
      return out;
    }
    case "array":
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items, depth + 1));
    case "integer":
    case "number":
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case "boolean":
      return false;
    case "string":
      if (schema.format === "email") return "contract@example.com";
      if (schema.format === "date-time") return new Date().toISOString();
      return "x".repeat(Math.max(1, schema.minLength ?? 7)).slice(0, Math.max(1, schema.maxLength ?? 64));
    default:
      return "example";
  }
}

interface Call {
  label: string;
  res: Response;
  text: string;
}

let signedIn: Client;
beforeAll(async () => {
  signedIn = new Client(baseUrl);
  await signedIn.signIn("contract@example.com");
});

const operations: Array<{ method: string; path: string; op: Json }> = [];
for (const [p, item] of Object.entries(doc.paths as Json)) {
  for (const [method, op] of Object.entries(item as Json)) operations.push({ method: method.toUpperCase(), path: p, op: op as Json });
}

async function send(method: string, apiPath: string, op: Json, mode: "anonymous" | "positive" | "negative"): Promise<Call> {
  let url = apiPath.replace(/\{(\w+)\}/g, "contract-missing-id");
  const query = new URLSearchParams();
  for (const param of (op.parameters as Json[] | undefined) ?? []) {
    if (param.in === "query" && param.required) query.set(param.name, String(sample(param.schema)));
  }
  if ([...query].length) url += `?${query}`;
  const headers: Record<string, string> = {};
  let body: BodyInit | undefined;
  const content = op.requestBody?.content as Json | undefined;
  if (content && mode !== "anonymous") {
    const [type, media] = Object.entries(content)[0] as [string, Json];
    const value = mode === "negative" ? [] : sample(media.schema);
    if (type === "multipart/form-data") {
      const form = new FormData();
      for (const [k, v] of Object.entries((value as Json) ?? {}))
        form.set(k, k === "audio" ? new Blob([Buffer.from("not audio")]) : String(v));
      body = form;
    } else if (type === "application/x-www-form-urlencoded") {
      headers["content-type"] = type;
      body = new URLSearchParams(Object.entries((value as Json) ?? {}).map(([k, v]) => [k, String(v)])).toString();
    } else if (type === "application/json") {
      headers["content-type"] = type;
      body = JSON.stringify(value);
    } else {
      headers["content-type"] = type;
      body = "contract";
    }
  }
  const client = mode === "anonymous" ? new Client(baseUrl) : signedIn;
  const res = await client.fetch(url, { method, headers, body });
  return { label: `${method} ${url} (${mode})`, res, text: await res.text() };
}

function check(apiPath: string, method: string, op: Json, call: Call): string[] {
  const problems: string[] = [];
  const status = String(call.res.status);
  const documented = (op.responses as Json)[status] ?? (op.responses as Json).default;
  if (!documented) return [`${call.label}: status ${status} is not documented (documented: ${Object.keys(op.responses).join(", ")})`];
  // Documented headers that are always sent (the rest depend on the request: X-Cache, X-RAG-*).
  for (const name of ["X-Request-Id", "Allow", "Retry-After", "Cache-Control"]) {
    if (documented.headers?.[name] && !call.res.headers.has(name))
      problems.push(`${call.label}: ${status} lacks the documented header ${name}`);
  }
  const content = documented.content as Json | undefined;
  if (!content) return problems;
  const type = (call.res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!content[type])
    return [...problems, `${call.label}: ${status} answered ${type || "no content type"}, documented ${Object.keys(content).join(", ")}`];
  if (type === "application/json") {
    let body: unknown;
    try {
      body = JSON.parse(call.text);
    } catch {
      return [`${call.label}: ${status} body is not JSON`];
    }
    const ref = (op.responses as Json)[status]
      ? pointer("paths", apiPath, method.toLowerCase(), "responses", status, "content", type, "schema")
      : pointer("paths", apiPath, method.toLowerCase(), "responses", "default", "content", type, "schema");
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    if (!validate(body)) problems.push(`${call.label}: ${status} body does not match the schema: ${ajv.errorsText(validate.errors)}`);
  }
  return problems;
}

describe("the live server matches docs/openapi.json", () => {
  it("lists operations to check", () => {
    expect(operations.length).toBeGreaterThan(40);
  });

  it("every operation answers only documented statuses, media types and body shapes (anonymous, positive and negative requests)", async () => {
    const problems: string[] = [];
    for (const { method, path: apiPath, op } of operations) {
      for (const mode of ["anonymous", "positive", "negative"] as const) {
        const call = await send(method, apiPath, op, mode);
        problems.push(...check(apiPath, method, op, call));
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);
});
