import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every rule of .dependency-cruiser.cjs (run by `npm run lint`) proven on a fixture tree that breaks
 * each one once (tests/unit/architecture/fixture), and the real tree proven clean. The allowed
 * imports in the fixture (an adapter importing its SDK, type-only imports, a route calling the
 * wrapper and a domain entry point) must not be reported.
 */
const root = path.resolve(__dirname, "../../..");
const fixture = path.join(__dirname, "fixture");
const bin = path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(cwd: string, targets: string[]): Violation[] {
  const run = spawnSync(
    process.execPath,
    [bin, ...targets, "--config", path.join(root, ".dependency-cruiser.cjs"), "--output-type", "json"],
    {
      cwd,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (!run.stdout) throw new Error(`dependency-cruiser failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const shortTarget = (to: string) => to.replace(/^(\.\.\/)+node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, "$2");

describe("architecture rules (dependency-cruiser)", () => {
  const found = cruise(fixture, ["app", "lib", "components"]).map((v) => `${v.rule.name}: ${v.from} -> ${shortTarget(v.to)}`);

  it("reports each vendor SDK imported outside its adapter", () => {
    for (const [rule, pkg] of [
      ["openai", "openai"],
      ["anthropic", "@anthropic-ai/sdk"],
      ["google-genai", "@google/genai"],
      ["genai-prices", "@pydantic/genai-prices"],
      ["ai-sdk", "ai"],
      ["aws-sdk", "@aws-sdk/client-s3"],
      ["resend", "resend"],
      ["svix", "svix"],
      ["upstash", "@upstash/redis"],
      ["database-drivers", "pg"],
      ["prom-client", "prom-client"],
      ["pino", "pino"],
      ["opentelemetry", "@opentelemetry/api"],
      ["next-auth", "next-auth"],
    ]) {
      expect(found).toContain(`vendor-${rule}-only-in-adapter: lib/credits/vendors.ts -> ${pkg}`);
    }
  });

  it("reports the layer, client, route and Prisma rules", () => {
    expect(found).toContain("prisma-client-only-in-db: lib/credits/prisma-runtime.ts -> lib/generated/prisma/client.ts");
    expect(found).toContain("domain-not-above-its-layer: lib/credits/uses-http.ts -> lib/http/route.ts");
    expect(found).toContain("client-code-not-server-code: components/widget.ts -> lib/db/client.ts");
    expect(found).toContain("route-imports-entry-points-only: app/api/things/route.ts -> lib/db/client.ts");
    expect(found).toContain("route-imports-entry-points-only: app/v1/things/route.ts -> lib/db/client.ts");
  });

  it("reports an import from a room to a room beside or above it", () => {
    expect(found.filter((v) => v.startsWith("lib-room-order:"))).toEqual([
      "lib-room-order: lib/ai/providers/uses-chat.ts -> lib/ai/chat/run-thing.ts",
    ]);
  });

  it("reports an import up or sideways between lib folders, and a folder without a layer", () => {
    expect(found.filter((v) => v.startsWith("lib-layer-order:")).sort()).toEqual([
      "lib-layer-order: lib/credits/uses-http.ts -> lib/http/route.ts",
      "lib-layer-order: lib/email/uses-ai.ts -> lib/ai/providers/provider-openai.ts",
      "lib-layer-order: lib/storage/after-upload.ts -> lib/rag/index-file.ts",
      "lib-layer-order: lib/storage/uses-credits.ts -> lib/credits/vendors.ts",
    ]);
    expect(found).toContain("lib-folder-has-a-layer: lib/widgets/widget-store.ts -> lib/storage/read-object.ts");
  });

  it("reports a file cycle and a folder cycle made of different files", () => {
    expect(found.filter((v) => v.startsWith("no-circular-files:"))).toEqual(["no-circular-files: lib/ai/cycle-a.ts -> lib/ai/cycle-b.ts"]);
    expect(found).toContain("no-circular-lib-folders: lib/rag -> lib/storage");
    expect(found).toContain("no-circular-lib-folders: lib/storage -> lib/rag");
  });

  it("reports nothing else: adapters, type-only imports, the wrapper and domain entry points are allowed", () => {
    expect(found).toHaveLength(28);
    expect(found.some((v) => v.startsWith("vendor-") && v.includes("lib/ai/providers/provider-openai.ts"))).toBe(false);
    expect(found.some((v) => v.includes("lib/users/schemas.ts"))).toBe(false);
    expect(found.some((v) => v.startsWith("route-imports-entry-points-only") && !v.endsWith("lib/db/client.ts"))).toBe(false);
    expect(found.some((v) => v.startsWith("prisma-client-only-in-db: lib/db/"))).toBe(false);
  });

  it("finds the project itself clean", () => {
    expect(cruise(root, ["app", "lib", "components", "proxy.ts", "instrumentation.ts", "scripts"])).toEqual([]);
  });
});
