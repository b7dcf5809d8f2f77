import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { routeFiles } from "@/lib/http/openapi";

/**
 * Every charged AI route hands its AI slot to its charge (ctx.aiSlot → openCharge({ slot }), or
 * streamedAiInput, which carries it): on PostgreSQL that is where the cap across instances is taken,
 * so a route that forgot it would hold only its own process's count. Read from the route files, since
 * the slot is an argument passed in the open.
 */
describe("charged AI routes pass their AI slot to the charge", () => {
  const files = [...routeFiles(path.join(process.cwd(), "app", "api")), ...routeFiles(path.join(process.cwd(), "app", "v1"))];
  const charged = files.filter((f) => {
    const text = readFileSync(f, "utf8");
    return /\baiRoute\(/.test(text) || (/\bv1Route\(/.test(text) && !/listing:\s*true/.test(text));
  });

  it("finds the AI routes", () => {
    expect(charged.map((f) => path.relative(process.cwd(), f)).sort()).toEqual(
      expect.arrayContaining([
        "app/api/ai/chat/route.ts",
        "app/api/ai/stream/route.ts",
        "app/v1/chat/completions/route.ts",
        "app/api/ai/rag/ask/route.ts",
      ]),
    );
    expect(charged.length).toBeGreaterThanOrEqual(10);
  });

  it.each(charged.map((f) => [path.relative(process.cwd(), f)]))("%s", (file) => {
    expect(readFileSync(file, "utf8")).toMatch(/\baiSlot\b|\bstreamedAiInput\(/);
  });
});
