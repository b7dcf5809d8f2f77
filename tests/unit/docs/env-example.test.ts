import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { settingNames } from "@/lib/config/env";

const documented = (file: string) => new Set([...readFileSync(file, "utf8").matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));

describe(".env.example and README", () => {
  const runtimeOnly = new Set(["NODE_ENV"]);
  const settings = settingNames.filter((n) => !runtimeOnly.has(n));

  it("lists every setting the env schema reads", () => {
    const listed = documented(".env.example");
    expect(settings.filter((n) => !listed.has(n))).toEqual([]);
  });

  it("lists nothing the env schema does not read", () => {
    const known = new Set(settingNames);
    expect([...documented(".env.example")].filter((n) => !known.has(n))).toEqual([]);
  });

  it("documents every setting in the README configuration table", () => {
    const readme = readFileSync("README.md", "utf8");
    expect(settings.filter((n) => !readme.includes(`\`${n}\``))).toEqual([]);
  });
});
