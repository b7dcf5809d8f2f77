import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { minimumNode, unsupportedNodeMessage } from "@/scripts/node-version.cjs";

describe("the supported Node.js versions (scripts/node-version.cjs)", () => {
  it("reads the minimum from package.json's engines, the one place it is written", () => {
    const engines = (JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(">=22.13");
    expect(minimumNode()).toEqual([22, 13, 0]);
  });

  it("refuses older versions in one line naming the needed and the running version, and what to do", () => {
    for (const version of ["20.19.0", "v18.20.4", "22.12.0", "22.0.0"]) {
      const message = unsupportedNodeMessage(version);
      expect(message, version).toMatch(
        /^This app needs Node\.js 22\.13 or newer, and this is Node\.js \d+\.\d+\.\d+: install Node\.js 24 LTS/,
      );
      expect(message!.split("\n")).toHaveLength(1);
    }
    for (const version of ["22.13.0", "22.20.1", "24.0.0", "v24.11.1", "25.1.0"])
      expect(unsupportedNodeMessage(version), version).toBeNull();
  });
});
