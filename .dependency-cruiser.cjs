// Architecture rules, checked by `npm run lint` (docs/CODE_STYLE.md explains the layers).
// dependency-cruiser rather than eslint-plugin-boundaries: it checks cycles between FOLDERS (not only
// files), tells type-only imports from runtime ones, and resolves the "@/" alias and package exports.
// tests/unit/architecture/rules.test.ts proves every rule by running it on a fixture that breaks it.

/** Each vendor package (regex on its resolved path) and the only files that may import it at run time. */
const VENDOR_ADAPTERS = [
  { name: "openai", pkg: "openai", adapters: ["lib/ai/providers/provider-openai\\.ts"] },
  { name: "anthropic", pkg: "@anthropic-ai/sdk", adapters: ["lib/ai/providers/provider-anthropic\\.ts"] },
  { name: "google-genai", pkg: "@google/genai", adapters: ["lib/ai/providers/provider-gemini\\.ts"] },
  { name: "genai-prices", pkg: "@pydantic/genai-prices", adapters: [] },
  { name: "ai-sdk", pkg: "(ai|@ai-sdk/[^/]+)", adapters: [] },
  { name: "aws-sdk", pkg: "@aws-sdk/[^/]+", adapters: ["lib/storage/s3-store\\.ts"] },
  { name: "resend", pkg: "resend", adapters: ["lib/email/resend-mailer\\.ts"] },
  { name: "svix", pkg: "svix", adapters: ["lib/webhooks/svix\\.ts"] },
  { name: "upstash", pkg: "@upstash/[^/]+", adapters: ["lib/ratelimit/upstash-store\\.ts"] },
  {
    name: "database-drivers",
    pkg: "(pg|@prisma/adapter-pg|@electric-sql/[^/]+|pglite-prisma-adapter)",
    // The migration CLI opens its own connection: it runs where the app's client must not (a build step).
    adapters: ["lib/db/client\\.ts", "scripts/db-migrate\\.ts"],
  },
  { name: "prom-client", pkg: "prom-client", adapters: ["lib/metrics/index\\.ts"] },
  { name: "pino", pkg: "pino", adapters: ["lib/log\\.ts"] },
  { name: "opentelemetry", pkg: "(@opentelemetry/[^/]+|@vercel/otel)", adapters: ["lib/tracing/[^/]+\\.ts"] },
  {
    name: "next-auth",
    pkg: "next-auth",
    adapters: ["lib/auth/[^/]+\\.ts", "app/api/auth/\\[\\.\\.\\.nextauth\\]/route\\.ts", "proxy\\.ts"],
  },
];

const vendorRules = VENDOR_ADAPTERS.map(({ name, pkg, adapters }) => ({
  name: `vendor-${name}-only-in-adapter`,
  severity: "error",
  comment: adapters.length
    ? `${pkg} is imported only by its adapter (${adapters.join(", ")}); everything else codes against the adapter's interface.`
    : `${pkg} is a development dependency of the tests and benchmarks (price checks, client SDKs): the product never imports it.`,
  from: { pathNot: [...adapters.map((a) => `^${a}$`), "^lib/generated/"] },
  to: { path: `(^|/)node_modules/${pkg}/`, dependencyTypesNot: ["type-only"] },
}));

/**
 * The layers of lib/, top to bottom (docs/CODE_STYLE.md "Layers"): a folder imports only folders of
 * the layers below its own, never one beside it or above it. A new folder must be given a layer here
 * (a folder without one is reported). "log.ts", "errors.ts", "credential-shapes.ts" and "text-shapes.ts" are files at the bottom.
 */
const LIB_LAYERS = [
  ["http"],
  ["admin", "openai-api"],
  ["auth", "api-keys"],
  ["simulator"],
  ["webhooks"],
  ["server", "cron"],
  ["account", "rag"],
  ["organisations"],
  ["billing", "ai"],
  ["spend-alerts"],
  ["outbound"],
  ["users", "audit"],
  ["credits", "email", "storage", "ratelimit", "health"],
  ["db"],
  ["metrics", "tracing"],
  ["config", "log.ts", "errors.ts", "credential-shapes.ts", "text-shapes.ts"],
  ["process-state.ts"],
];
const libPath = (name) => (name.endsWith(".ts") ? `^lib/${name.replace(".", "\\.")}$` : `^lib/${name}/`);
const layerRules = LIB_LAYERS.flatMap((layer, i) =>
  layer.flatMap((name) => {
    const notBelow = LIB_LAYERS.slice(0, i + 1)
      .flat()
      .filter((other) => other !== name);
    if (notBelow.length === 0) return [];
    return {
      name: "lib-layer-order",
      severity: "error",
      comment: `lib/${name} imports only the layers below its own (${LIB_LAYERS.slice(i + 1)
        .map((l) => l.join(", "))
        .join(" | ")}); never ${notBelow.join(", ")}.`,
      from: { path: libPath(name) },
      to: { path: notBelow.map(libPath) },
    };
  }),
);
const layeredPaths = LIB_LAYERS.flat().map(libPath);

/**
 * The rooms of the domains large enough to have them (docs/ARCHITECTURE.md "Rooms"), top to bottom:
 * a room imports the rooms below it and its domain's top-level files, never a room beside or above
 * it. A room's top-level files are its entry points (routes may import them).
 */
const ROOMS = {
  ai: [["chat", "images", "speech", "content"], ["pricing"], ["providers"], ["catalog", "audio"]],
  billing: [["auto-recharge"], ["checkout"], ["subscriptions"], ["receipts"], ["payment-provider"]],
};
const roomRules = Object.entries(ROOMS).flatMap(([domain, layers]) =>
  layers.flatMap((layer, i) =>
    layer.flatMap((room) => {
      const notBelow = layers
        .slice(0, i + 1)
        .flat()
        .filter((other) => other !== room);
      if (notBelow.length === 0) return [];
      return {
        name: "lib-room-order",
        severity: "error",
        comment: `lib/${domain}/${room} imports only the rooms below its own (${
          layers
            .slice(i + 1)
            .map((l) => l.join(", "))
            .join(" | ") || "none"
        }); never ${notBelow.join(", ")}.`,
        from: { path: `^lib/${domain}/${room}/` },
        to: { path: notBelow.map((other) => `^lib/${domain}/${other}/`), dependencyTypesNot: ["type-only"] },
      };
    }),
  ),
);
const roomEntry = Object.entries(ROOMS)
  .map(([domain, layers]) => `^lib/${domain}/(${layers.flat().join("|")})/[^/]+/`)
  .join("|");

module.exports = {
  forbidden: [
    ...vendorRules,
    ...layerRules,
    ...roomRules,
    {
      name: "lib-folder-has-a-layer",
      severity: "error",
      comment: "Every lib/ folder has its place in LIB_LAYERS (this file), so its imports are checked.",
      from: { path: "^lib/", pathNot: [...layeredPaths, "^lib/generated/"] },
      to: {},
    },
    {
      name: "prisma-client-only-in-db",
      severity: "error",
      comment:
        "The generated Prisma client is constructed in lib/db/client.ts only; other code imports its types (import type) and gets the client from db().",
      from: { pathNot: ["^lib/db/client\\.ts$", "^lib/generated/"] },
      to: { path: "^lib/generated/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "domain-not-above-its-layer",
      severity: "error",
      comment:
        "lib/ code never imports the HTTP layer (lib/http), pages or routes (app/) or dashboard components; it throws AppError and lib/http maps it.",
      from: { path: "^lib/", pathNot: "^lib/http/" },
      to: { path: ["^lib/http/", "^app/", "^components/"] },
    },
    {
      name: "client-code-not-server-code",
      severity: "error",
      comment: "Dashboard components run in the browser: they may import types from lib/ (erased at build), never lib/ code.",
      from: { path: "^components/" },
      to: { path: "^lib/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "route-imports-entry-points-only",
      severity: "error",
      comment:
        "A route file declares (route wrapper, zod schemas) and calls lib/<domain> entry points: a domain's top-level files, not its infrastructure (database, Prisma, logs, tracing, the wrapper's internals) or nested internals.",
      from: { path: "^app/(api|v1)/.+/route\\.ts$" },
      to: {
        path: [
          "^lib/(db|generated|tracing)/",
          "^lib/log\\.ts$",
          "^lib/http/(handler|status|openapi|client-ip|unsafe-text|cache)\\.ts$",
          // Nested internals, but a room's top-level files (its entry points) and the webhook processors.
          `^lib/(?!(${Object.keys(ROOMS).join("|")})/(${Object.values(ROOMS).flat(2).join("|")})/[^/]+\\.ts$)[^/]+/[^/]+/(?!process-[a-z]+-webhook\\.ts$)`,
          roomEntry,
          "^(app|components)/",
          "(^|/)node_modules/(?!(zod|next-auth)/)",
        ],
      },
    },
    {
      name: "no-circular-files",
      severity: "error",
      comment: "Files form no import cycle (type-only imports included: a cycle of types is still a cycle of meaning).",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular-lib-folders",
      severity: "error",
      comment: "The folders of lib/ form a layered graph: no folder reaches back to one that imports it.",
      scope: "folder",
      from: { path: "^lib/" },
      to: { circular: true },
    },
  ],
  options: {
    // The generated Prisma client is a leaf: imports of it are checked, its own files are not crawled.
    doNotFollow: { path: ["node_modules", "^lib/generated/"] },
    exclude: { path: ["^node_modules/", "^\\.next"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
  },
};
