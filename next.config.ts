import type { NextConfig } from "next";
import { securityHeaders } from "./lib/config/security-headers";
import { refuseUnsupportedNode } from "./scripts/node-version.cjs";

// next dev and next build read this file first: an unsupported Node stops here, in one line.
refuseUnsupportedNode();

const nextConfig: NextConfig = {
  // Separate build directories let the e2e, benchmark and browser suites build side by side.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  reactStrictMode: true,
  // A self-contained server in <distDir>/standalone (server.js + the node_modules it needs), run by
  // `npm start` and by the container image.
  output: "standalone",
  // The build type-checks. BUILD_SKIP_TYPECHECK=true skips it where `npm run typecheck` already ran
  // over the same tree (CI's test builds); a platform that only runs `next build` still type-checks.
  typescript: { ignoreBuildErrors: process.env.BUILD_SKIP_TYPECHECK === "true" },
  poweredByHeader: false,
  // The proxy (proxy.ts) sees the URL the server itself was asked on (its HOSTNAME and PORT): its
  // rewrites and redirects are then recognised as this server's own and stay internal and relative.
  // Without it, Next hands the proxy a "localhost" URL, and a rewrite to it is forwarded over HTTP as
  // to another host, with x-middleware-rewrite naming that host and port in the answer.
  skipProxyUrlNormalize: true,
  // PGlite ships WASM and data files that must be loaded from node_modules at run time, not bundled.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "@electric-sql/pglite-pgvector",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "pg",
    // pdf.js (inside unpdf) loads its worker and data files at run time.
    "unpdf",
    // The tokenizers' rank tables take a few hundred milliseconds to build: loaded once per process
    // from node_modules (shared by every route, warmed at start: lib/server/start-server.ts), not once
    // per bundle on some request's time.
    "gpt-tokenizer",
    // pino and prom-client keep process-wide state and are loaded from node_modules as they ship.
    "pino",
    "pino-pretty",
    "prom-client",
  ],
  // Migrations, the database functions' files and the shipped knowledge are read from disk at run time.
  outputFileTracingIncludes: {
    "/**": ["./prisma/migrations/**/*", "./prisma/functions/**/*", "./knowledge/**/*"],
  },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders() }];
  },
};

export default nextConfig;
