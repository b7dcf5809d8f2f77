import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { closeDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { methods, route } from "@/lib/http/route";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";

afterAll(closeDb);

/** Real routes declared with the real wrapper, as an endpoint file would. */
const echo = route(
  {
    auth: "none",
    summary: "echo",
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) }),
    body: z.object({ name: z.string().min(1), temperature: z.number().min(0).max(2).optional() }),
  },
  ({ query, body }) => ({ query, body }),
);
const boom = route({ auth: "none", summary: "boom" }, () => {
  throw new Error("connect ECONNREFUSED 10.0.0.5:5432 password=hunter2");
});
const internal = route({ auth: "none", summary: "internal" }, () => {
  throw new AppError("internal", "invariant broken in ledger row 42");
});
const notFound = route({ auth: "session", summary: "nf" }, () => {
  throw new AppError("not_found", "Conversation not found");
});
const flagged = route({ auth: "session", feature: "aiChat", summary: "flagged" }, () => ({ ok: true }));
const cached = route({ auth: "optional", cache: "privateMinute", summary: "cached" }, ({ user, setHeader }) => {
  setHeader("x-extra", "1");
  return { user: user?.email ?? null };
});
const endpoint = methods({ POST: echo, GET: cached });
const formEcho = route(
  {
    auth: "none",
    summary: "form",
    body: z.object({ id: z.string().min(1), note: z.string().optional() }),
    bodyFormat: "form",
    maxBodyBytes: 512,
  },
  ({ body, bodyFormat }) => ({ body, bodyFormat }),
);

let logged: string[] = [];
beforeEach(() => {
  logged = [];
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void logged.push(String(line)));
});
afterEach(() => vi.restoreAllMocks());

describe("route() wrapper", () => {
  it("validates the body: 400 naming the field, nothing reaches the handler", async () => {
    const res = await call(echo, { path: "/x", body: { name: "", temperature: 3 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid body: name: .+; temperature: Too big: expected number to be <=2$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 400 for a missing or non-JSON body", async () => {
    expect((await call(echo, { method: "POST", path: "/x" })).body.error).toMatch(/^Invalid body: body: /);
    const bad = await call(echo, { method: "POST", path: "/x", rawBody: "{oops", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "Invalid body: not valid JSON", code: "validation_failed" });
  });

  it("form mode: one schema reads an HTML form post or JSON, and says which arrived", async () => {
    const urlencoded = { "content-type": "application/x-www-form-urlencoded" };
    const posted = await call(formEcho, { method: "POST", path: "/f", rawBody: "id=abc&note=hi%20there&id=second", headers: urlencoded });
    expect(posted.body).toEqual({ body: { id: "abc", note: "hi there" }, bodyFormat: "form" });
    const multipart = new FormData();
    multipart.set("id", "m1");
    multipart.set("upload", new Blob(["x"]), "x.txt");
    const parts = await call(formEcho, { method: "POST", path: "/f", rawBody: multipart });
    expect(parts.body).toEqual({ body: { id: "m1" }, bodyFormat: "form" });
    expect((await call(formEcho, { path: "/f", body: { id: "j1" } })).body).toEqual({ body: { id: "j1" }, bodyFormat: "json" });
    const missing = await call(formEcho, { method: "POST", path: "/f", rawBody: "note=x", headers: urlencoded });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/^Invalid body: id: /);
    const large = await call(formEcho, { method: "POST", path: "/f", rawBody: `id=${"a".repeat(600)}`, headers: urlencoded });
    expect(large.status).toBe(413);
    const broken = await call(formEcho, {
      method: "POST",
      path: "/f",
      rawBody: '--zz\r\nContent-Disposition: form-data; name="id"\r\n\r\nab',
      headers: { "content-type": "multipart/form-data; boundary=zz" },
    });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ error: "Invalid body: the form could not be read", code: "validation_failed" });
  });

  it("validates the query: 400 naming the parameter; defaults and coercion apply", async () => {
    const bad = await call(echo, { path: "/x?limit=0", body: { name: "a" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Invalid query: limit: Too small/);
    const ok = await call(echo, { path: "/x?limit=7", body: { name: "a" } });
    expect(ok.body).toEqual({ query: { limit: 7 }, body: { name: "a" } });
    expect((await call(echo, { path: "/x", body: { name: "a" } })).body.query).toEqual({ limit: 50 });
  });

  it("answers 500 with a generic message for unexpected errors: no stack, no internals; the cause is logged with the request id", async () => {
    const res = await call(boom, { path: "/boom", headers: { "x-request-id": "req-abc-123" } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal server error", code: "internal" });
    expect(res.text).not.toMatch(/ECONNREFUSED|hunter2|at |\.ts/);
    expect(res.headers.get("x-request-id")).toBe("req-abc-123");
    const line = logged.map((l) => JSON.parse(l)).find((l) => l.msg === "unhandled error");
    expect(line).toMatchObject({ level: "error", requestId: "req-abc-123", path: "/boom" });
    expect(line.error.message).toContain("ECONNREFUSED");
  });

  it("never exposes the message of an internal AppError", async () => {
    const res = await call(internal, { path: "/i" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "Internal server error", code: "internal" });
  });

  it("maps AppError codes through the one status table", async () => {
    const { cookie } = await signIn();
    const res = await call(notFound, { path: "/nf", cookie });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "Conversation not found", code: "not_found" });
  });

  it("puts a request id on every response: a new UUID, or the caller's when sane", async () => {
    const a = await call(cached, { path: "/c" });
    expect(a.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const b = await call(cached, { path: "/c", headers: { "x-request-id": "bad id with spaces\n" } });
    expect(b.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const c = await call(endpoint.DELETE, { method: "DELETE", path: "/c", headers: { "x-request-id": "given-1" } });
    expect(c.headers.get("x-request-id")).toBe("given-1");
  });

  it("answers 405 with an Allow header listing the implemented methods", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"] as const) {
      const res = await call(endpoint[method], { method, path: "/e" });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, POST");
      expect(res.body).toEqual({ error: `Method ${method} not allowed; use GET, POST`, code: "method_not_allowed" });
    }
  });

  it("checks the feature flag first: 404 even without a session when the feature is off", async () => {
    const restore = setEnv({ PUBLIC_AI_LLM_CHAT_ENABLED: "false" });
    try {
      const res = await call(flagged, { path: "/f" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Not found", code: "feature_disabled" });
    } finally {
      restore();
    }
    expect((await call(flagged, { path: "/f" })).status).toBe(401);
  });

  it("applies the cache policy to 2xx only and keeps headers the handler set", async () => {
    const res = await call(cached, { path: "/c" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    expect(res.headers.get("x-extra")).toBe("1");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("optional auth: resolves a session from the cookie or an Authorization bearer token, else null", async () => {
    const { user, cookie } = await signIn("wrapper-optional@example.com");
    expect((await call(cached, { path: "/c" })).body).toEqual({ user: null });
    expect((await call(cached, { path: "/c", cookie })).body).toEqual({ user: user.email });
    const token = cookie.split("=")[1];
    expect((await call(cached, { path: "/c", headers: { authorization: `Bearer ${token}` } })).body).toEqual({ user: user.email });
    expect((await call(cached, { path: "/c", headers: { authorization: "Bearer nonsense" } })).body).toEqual({ user: null });
  });

  it("carries the declaration for the OpenAPI document", () => {
    expect(echo.definition?.summary).toBe("echo");
    expect(endpoint.PUT.definition).toBeUndefined();
  });
});
