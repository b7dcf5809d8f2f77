import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { interceptRequestListeners, loadRouteHandler, NextInternalsChanged, standaloneDistDir } from "@/lib/server/next-internals";

/**
 * The standalone server's reliance on Next.js internals (lib/server/next-internals.ts), each piece
 * checked: a Next.js that changed under it is named in an error, which turns the gateway lane off.
 */
const saved = { config: process.env.__NEXT_PRIVATE_STANDALONE_CONFIG, cwd: process.cwd() };
const createServer = http.createServer;
afterEach(() => {
  if (saved.config === undefined) delete process.env.__NEXT_PRIVATE_STANDALONE_CONFIG;
  else process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = saved.config;
  process.chdir(saved.cwd);
  http.createServer = createServer;
});

function standalone(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "next-internals-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe("Next.js internals the standalone server relies on", () => {
  it("reads the build's directory from the configuration server.js publishes, and says when it is missing", () => {
    delete process.env.__NEXT_PRIVATE_STANDALONE_CONFIG;
    expect(() => standaloneDistDir()).toThrow(NextInternalsChanged);
    process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify({ distDir: ".next-e2e" });
    expect(standaloneDistDir()).toBe(".next-e2e");
  });

  it("loads a route's handler of a method as Next does, and refuses one that is not the route wrapper's or missing", async () => {
    const dir = standalone({
      ".next/server/app/good/route.js":
        "const post = async () => new Response('ok'); post.definition = { auth: 'session' };\nconst get = async () => new Response('read'); get.definition = { auth: 'session' };\nmodule.exports = { routeModule: { userland: undefined, async ensureUserland() { this.userland = { POST: post, GET: get }; } } };",
      ".next/server/app/post-only/route.js":
        "const post = async () => new Response('ok'); post.definition = { auth: 'session' };\nmodule.exports = { routeModule: { userland: { POST: post } } };",
      ".next/server/app/plain/route.js": "module.exports = { routeModule: { userland: { POST: async () => new Response('ok') } } };",
      ".next/server/app/none/route.js": "module.exports = {};",
    });
    try {
      process.chdir(dir);
      process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify({ distDir: ".next" });
      expect(typeof (await loadRouteHandler("app/good/route.js"))).toBe("function");
      expect(
        await (
          await (
            await loadRouteHandler("app/good/route.js", "GET")
          )(new Request("http://x/"), { params: Promise.resolve({}) })
        ).text(),
      ).toBe("read");
      await expect(loadRouteHandler("app/post-only/route.js", "GET")).rejects.toThrow(/routeModule\.userland\.GET is not a function/);
      await expect(loadRouteHandler("app/plain/route.js")).rejects.toThrow(/not the route wrapper's handler/);
      await expect(loadRouteHandler("app/none/route.js")).rejects.toThrow(/exports no routeModule/);
      await expect(loadRouteHandler("app/missing/route.js")).rejects.toThrow(/no compiled route module/);
    } finally {
      process.chdir(saved.cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("puts a listener in front of every server node:http makes, and lists them", async () => {
    const seen: string[] = [];
    const intercepted = interceptRequestListeners((req, res, next) => {
      seen.push(req.url ?? "");
      if (req.url === "/mine") res.end("mine");
      else next(req, res);
    });
    const server = http.createServer((_req, res) => res.end("theirs"));
    expect(intercepted.servers).toEqual([server]);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      expect(await (await fetch(`${url}/mine`)).text()).toBe("mine");
      expect(await (await fetch(`${url}/other`)).text()).toBe("theirs");
      expect(seen).toEqual(["/mine", "/other"]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
