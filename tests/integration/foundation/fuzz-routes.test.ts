import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, db } from "@/lib/db/client";
import type { NextRouteHandler } from "@/lib/http/handler";
import { openApiPath, routeFiles } from "@/lib/http/openapi";
import { setEnv } from "@/tests/helpers/env";
import { send, signIn } from "@/tests/helpers/http";

/**
 * Malformed input never answers 5xx: every route of app/api (every method it declares), with and
 * without a session, is called with ids and text that PostgreSQL or the parsers choke on: NUL, lone
 * surrogates, 100 kB strings, deep nesting, wrong types. Each answer is < 500 with a JSON `{ error }`
 * body when it is an error. (Bad %-escapes in paths never reach a handler: tests/e2e/malformed.test.ts.)
 */
const NUL = "a\u0000b";
const SURROGATE = "x\uD800y";
const LONG = "x".repeat(100_000);
/** URL-encodes like a client would; a lone surrogate has no UTF-8 form, so send the bytes a broken client would. */
const enc = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
};
const deep = (n: number): unknown => (n === 0 ? "leaf" : { nested: deep(n - 1) });

const TEXTS = [NUL, SURROGATE, LONG, "\u0000"];
const BODIES: unknown[] = [
  ...TEXTS.map((t) => ({
    question: t,
    conversationId: t,
    messages: [{ role: "user", content: t }],
    prompt: t,
    to: t,
    subject: t,
    text: t,
    variantId: t,
    newVariantId: t,
    email: t,
    template: t,
    fields: { topic: t },
  })),
  { messages: [{ role: "user", content: [{ type: "text", text: NUL }] }] },
  deep(2000),
  [1, [2, [3]]],
  "just a string",
  { messages: "not-an-array", temperature: "hot", requests: [{}] },
];

interface Operation {
  name: string;
  path: string;
  handler: NextRouteHandler;
  method: string;
  params: string[];
}

const operations: Operation[] = [];
let cookie = "";
let restore: () => void;

beforeAll(async () => {
  restore = setEnv({ RATE_LIMIT_ENABLED: "false", LOG_LEVEL: "error" });
  await db();
  ({ cookie } = await signIn("fuzz@example.com"));
  const appDir = path.join(process.cwd(), "app");
  for (const file of routeFiles(path.join(appDir, "api"))) {
    const mod = (await import(pathToFileURL(file).href)) as Record<string, NextRouteHandler>;
    const { path: apiPath, params } = openApiPath(appDir, file);
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const handler = mod[method];
      if (handler?.definition) operations.push({ name: `${method} ${apiPath}`, path: apiPath, handler, method, params });
    }
  }
}, 120_000);

afterAll(async () => {
  restore();
  await closeDb();
});

async function expectNo5xx(
  op: Operation,
  init: { params?: Record<string, string>; query?: string; body?: unknown; rawBody?: string; withSession: boolean; contentType?: string },
) {
  const url = `${op.path.replace(/\{(\w+)\}/g, (_, p: string) => enc(init.params?.[p] ?? "x"))}${init.query ?? ""}`;
  const hasBody = op.method !== "GET" && op.method !== "DELETE";
  const res = await send(op.handler, {
    method: op.method,
    path: url,
    cookie: init.withSession ? cookie : undefined,
    params: init.params ?? Object.fromEntries(op.params.map((p) => [p, "x"])),
    ...(hasBody
      ? { rawBody: init.rawBody ?? JSON.stringify(init.body ?? {}), headers: { "content-type": init.contentType ?? "application/json" } }
      : {}),
  });
  const text = await res.text();
  const label = `${op.name} ${JSON.stringify({ ...init, body: undefined, rawBody: undefined }).slice(0, 200)} -> ${res.status} ${text.slice(0, 200)}`;
  expect(res.status, label).toBeLessThan(500);
  if (res.status >= 400 && res.status !== 405) {
    const body = JSON.parse(text) as { error?: unknown };
    expect(typeof body.error, label).toBe("string");
  }
}

describe("no 5xx for malformed input, on every route", () => {
  it("covers every API route", () => {
    expect(operations.length).toBeGreaterThan(40);
  });

  it("malformed ids in path parameters answer 404 (or 401 without a session)", async () => {
    for (const op of operations.filter((o) => o.params.length > 0)) {
      for (const value of [...TEXTS, "..%2f..", "\u0007", "%"]) {
        for (const withSession of [true, false]) {
          await expectNo5xx(op, { params: Object.fromEntries(op.params.map((p) => [p, value])), withSession });
        }
      }
    }
  }, 300_000);

  it("query parameters with NUL, lone surrogates and 100 kB values", async () => {
    for (const op of operations) {
      for (const value of TEXTS) {
        const q = enc(value);
        await expectNo5xx(op, {
          query: `?id=${q}&limit=${q}&offset=${q}&year=${q}&filename=${q}&filesize=${q}&filetype=${q}&tier=${q}&billing=${q}&key=${q}`,
          withSession: true,
        });
      }
    }
  }, 300_000);

  it("bodies with NUL, lone surrogates, 100 kB strings, deep nesting and wrong types", async () => {
    for (const op of operations.filter((o) => o.method !== "GET" && o.method !== "DELETE")) {
      for (const body of BODIES) await expectNo5xx(op, { body, withSession: true });
      await expectNo5xx(op, { rawBody: '{"question": "unterminated', withSession: true });
      await expectNo5xx(op, {
        rawBody: '--zzz\r\nContent-Disposition: form-data; name="audio"; filename="a.webm"\r\n\r\nabc',
        contentType: "multipart/form-data; boundary=zzz",
        withSession: true,
      });
    }
  }, 300_000);
});
