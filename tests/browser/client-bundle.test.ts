import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILD_ONLY_SECRETS, DIST_DIR, TEST_SECRETS, ensureBuild } from "./server";

/**
 * No page pulls server secrets into what the browser downloads. The build this suite makes was given
 * a recognisable value for every server-side credential (TEST_SECRETS + BUILD_ONLY_SECRETS); every
 * file under <distDir>/static (the JavaScript, CSS and media served to browsers) is searched for those
 * values, and for the names of the server-only settings (a name in a client chunk means server
 * configuration code was bundled for the browser, even if this build's value happens to be empty).
 */
const STATIC_DIR = path.join(process.cwd(), DIST_DIR, "static");

/** Settings read only on the server (lib/config/env.ts); PUBLIC_* flags are not secrets. */
const SERVER_ONLY_NAMES = [
  ...Object.keys(TEST_SECRETS),
  ...Object.keys(BUILD_ONLY_SECRETS),
  "LEMONSQUEEZY_API_KEY",
  "LEMONSQUEEZY_STORE_ID",
  "PRICING_CONFIG",
  "PGLITE_DATA_DIR",
];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe("client bundles", () => {
  let files: { name: string; text: string }[] = [];

  beforeAll(() => {
    ensureBuild();
    files = filesUnder(STATIC_DIR).map((p) => ({ name: path.relative(STATIC_DIR, p), text: readFileSync(p, "latin1") }));
  });

  it("the build has client chunks to check, including the dashboard's", () => {
    const js = files.filter((f) => f.name.endsWith(".js"));
    expect(js.length).toBeGreaterThan(5);
    // The dashboard's own client code is in there (a string only components/api.ts has).
    expect(js.some((f) => f.text.includes("Could not reach the server"))).toBe(true);
  });

  it("contains none of the secret values the build was given", () => {
    const secrets = { ...TEST_SECRETS, ...BUILD_ONLY_SECRETS };
    const found: string[] = [];
    for (const [name, value] of Object.entries(secrets)) {
      for (const f of files) if (f.text.includes(value)) found.push(`${name} value in ${f.name}`);
    }
    // The database password alone, in case a URL was rewritten or split.
    const dbPassword = new URL(BUILD_ONLY_SECRETS.DATABASE_URL).password;
    for (const f of files) if (f.text.includes(dbPassword)) found.push(`DATABASE_URL password in ${f.name}`);
    expect(found).toEqual([]);
  });

  it("mentions no server-only setting by name", () => {
    const found: string[] = [];
    for (const name of SERVER_ONLY_NAMES) {
      const re = new RegExp(`\\b${name}\\b`);
      for (const f of files) if (re.test(f.text)) found.push(`${name} in ${f.name}`);
    }
    expect(found).toEqual([]);
  });
});
