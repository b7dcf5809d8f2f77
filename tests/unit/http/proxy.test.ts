import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { securityHeaders } from "@/lib/config/security-headers";
import { isConsoleAccess } from "@/lib/auth/console-access";
import { config, proxy } from "@/proxy";
import { setEnv } from "@/tests/helpers/env";
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
    // HSTS comes with production builds (lib/config/security-headers.ts), whatever the request's scheme.
    expect(fresh.headers.get("strict-transport-security")).toBeNull();
    expect(securityHeaders(true).find((h) => h.key === "Strict-Transport-Security")?.value).toMatch(/max-age=63072000/);
    expect(securityHeaders(false).some((h) => h.key === "Strict-Transport-Security")).toBe(false);
  });

  it("limits where a page's forms may lead: this site, and the configured sign-in and checkout providers", async () => {
    const plain = await proxy(request("http://localhost:3000/signin"));
    expect(plain.headers.get("content-security-policy")).toContain("form-action 'self'");
    const undo = setEnv({
      AUTH_OIDC_ISSUER: "https://sso.example.com/realm",
      AUTH_OIDC_ID: "x",
      AUTH_OIDC_SECRET: "y",
      AUTH_GITHUB_ID: "gh",
      AUTH_GITHUB_SECRET: "s",
    });
    try {
      const csp = (await proxy(request("http://localhost:3000/signin"))).headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/form-action 'self' https:\/\/github\.com https:\/\/sso\.example\.com(;|$)/);
    } finally {
      undo();
    }
  });
});

describe("proxy: malformed API paths", () => {
  it.each(["/api/files/%ff", "/api/files/%E0%A4%A", "/api/files/%c0%af", "/api/ai/rag/conversations/%ff"])(
    "answers %s with a JSON 404, not Next's plain-text 500",
    async (p) => {
      const res = await proxy(request(`http://localhost:3000${p}`));
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "Not found: the path is not validly encoded", code: "not_found" });
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    },
  );

  it("lets well-formed escapes through", async () => {
    const res = await proxy(request("http://localhost:3000/api/files/a%20b"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-middleware-next")).toBe("1");
  });

  it("rewrites /admin to the console's pages for an operator's session only; anyone else's request goes on untouched", async () => {
    const restore = setEnv({ ADMIN_EMAILS: "boss@example.com" });
    try {
      const operator = await sessionCookie({ id: "u-op", email: "boss@example.com" }, { authMethod: "oidc", emailVerified: true });
      const visitor = await sessionCookie({ id: "u-v", email: "visitor@example.com" }, { authMethod: "oidc", emailVerified: true });
      const rewritten = await proxy(request("http://localhost:3000/admin/users?q=a", { cookie: operator }));
      expect(new URL(rewritten.headers.get("x-middleware-rewrite") as string).pathname).toBe("/_console/users");
      expect(new URL(rewritten.headers.get("x-middleware-rewrite") as string).search).toBe("?q=a");
      for (const headers of [{}, { cookie: visitor }] as Record<string, string>[]) {
        const res = await proxy(request("http://localhost:3000/admin/users", headers));
        expect(res.headers.get("x-middleware-rewrite")).toBeNull();
        expect(res.headers.get("x-middleware-next")).toBe("1");
      }
    } finally {
      restore();
    }
  });

  it("drops a console access header a client made up, keeps the proxy's own, and gives it only to an operator's rewrite", async () => {
    const restore = setEnv({ ADMIN_EMAILS: "boss@example.com" });
    try {
      const forged = await proxy(request("http://localhost:3000/_console/users", { "x-console-access": "anything" }));
      expect(forged.headers.get("x-middleware-rewrite")).toBeNull();
      expect(forged.headers.get("x-middleware-request-x-console-access")).toBeNull();
      const operator = await sessionCookie({ id: "u-op2", email: "boss@example.com" }, { authMethod: "oidc", emailVerified: true });
      const rewritten = await proxy(request("http://localhost:3000/admin", { cookie: operator }));
      const token = rewritten.headers.get("x-middleware-request-x-console-access");
      expect(isConsoleAccess(token)).toBe(true);
      // A rewrite Next forwarded over HTTP comes back with the proxy's own header: it is kept.
      const forwarded = await proxy(request("http://localhost:3000/_console", { "x-console-access": token as string }));
      expect(forwarded.headers.get("x-middleware-request-x-console-access")).toBe(token);
    } finally {
      restore();
    }
  });
});

describe("where the proxy runs (config.matcher, as Next matches it)", () => {
  it("pages and body-less API requests with a %-escape in the path; never a plain API request or one with a body", async () => {
    // Next's matcher test helper reads the request stores Next installs on the global object.
    (globalThis as { AsyncLocalStorage?: unknown }).AsyncLocalStorage ??= (await import("node:async_hooks")).AsyncLocalStorage;
    const { unstable_doesMiddlewareMatch } = await import("next/experimental/testing/server");
    const runs = (path: string, headers: Record<string, string> = {}) =>
      unstable_doesMiddlewareMatch({ config, url: `http://localhost:3000${path}`, headers });
    for (const page of ["/", "/dashboard", "/dashboard/keys", "/admin", "/signin"]) expect(runs(page), page).toBe(true);
    for (const plain of [
      "/api/user/status",
      "/api/health",
      "/api/files/abc",
      "/v1/models",
      "/api/no-such-route",
      "/api/files/x/content?token=%25",
    ])
      expect(runs(plain), plain).toBe(false);
    for (const malformed of ["/api/files/%ff", "/api/files/%E0%A4%A", "/api/ai/rag/conversations/%c0%af", "/v1/models/%ff"])
      expect(runs(malformed), malformed).toBe(true);
    expect(runs("/api/files/%ff", { "content-length": "2" })).toBe(false);
    expect(runs("/v1/models/%ff", { "transfer-encoding": "chunked" })).toBe(false);
  });
});
