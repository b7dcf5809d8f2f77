import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { proxy } from "@/proxy";
import { sessionCookie } from "@/tests/helpers/http";

const request = (url: string, headers: Record<string, string> = {}) => new NextRequest(url, { headers });

describe("proxy", () => {
  it("redirects a signed-out dashboard request to /signin with the callback", async () => {
    const res = await proxy(request("http://localhost:3000/dashboard/credits?tab=1"));
    expect(res.status).toBe(307);
    const location = new URL(res.headers.get("location") as string);
    expect(location.pathname).toBe("/signin");
    expect(location.searchParams.get("callbackUrl")).toBe("/dashboard/credits?tab=1");
  });

  it("x-middleware-subrequest gains nothing: still redirected, and the header is not passed on", async () => {
    const res = await proxy(
      request("http://localhost:3000/dashboard", { "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware" }),
    );
    expect(res.status).toBe(307);
    const passed = await proxy(request("http://localhost:3000/api/health", { "x-middleware-subrequest": "middleware" }));
    expect(passed.headers.get("x-middleware-request-x-middleware-subrequest")).toBeNull();
    expect(passed.headers.get("x-middleware-override-headers")).not.toContain("x-middleware-subrequest");
  });

  it("lets a signed-in user through to the dashboard; a forged cookie is not signed in", async () => {
    const cookie = await sessionCookie({ id: "u-mw", email: "mw@example.com" });
    const ok = await proxy(request("http://localhost:3000/dashboard", { cookie }));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-middleware-next")).toBe("1");
    const forged = await proxy(request("http://localhost:3000/dashboard", { cookie: "next-auth.session-token=forged" }));
    expect(forged.status).toBe(307);
  });

  it("sets security headers and a request id on every response, passing the id to the route", async () => {
    const res = await proxy(request("http://localhost:3000/api/health", { "x-request-id": "mw-given-1" }));
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-request-id")).toBe("mw-given-1");
    expect(res.headers.get("x-middleware-request-x-request-id")).toBe("mw-given-1");
    const fresh = await proxy(request("https://example.com/", { "x-request-id": "bad id" }));
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.headers.get("strict-transport-security")).toMatch(/max-age=/);
  });
});

describe("proxy: malformed API paths", () => {
  it.each(["/api/files/%ff", "/api/files/%E0%A4%A", "/api/files/%c0%af", "/api/ai/rag/conversations/%ff"])("answers %s with a JSON 404, not Next's plain-text 500", async (p) => {
    const res = await proxy(request(`http://localhost:3000${p}`));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "Not found: the path is not validly encoded", code: "not_found" });
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("lets well-formed escapes through", async () => {
    const res = await proxy(request("http://localhost:3000/api/files/a%20b"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-middleware-next")).toBe("1");
  });
});
