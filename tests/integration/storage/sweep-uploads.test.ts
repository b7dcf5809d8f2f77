import { mkdirSync, utimesSync, writeFileSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { env } from "@/lib/config/env";
import { ABANDONED_UPLOAD_AFTER_MS, sweepAbandonedUploads } from "@/lib/storage";

/** The local store's sweep of `.partial` files that killed uploads left behind. */
function partial(name: string, ageMs: number): string {
  const dir = path.resolve(env().dataDir, "storage", "uploads", "user-sweep");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, "half an upload");
  const at = new Date(Date.now() - ageMs);
  utimesSync(file, at, at);
  return file;
}

describe("abandoned uploads", () => {
  it("the daily sweep removes partials older than the upload timeout and keeps uploads in progress", async () => {
    const old = partial("old.abc.partial", ABANDONED_UPLOAD_AFTER_MS + 60_000);
    const fresh = partial("fresh.abc.partial", 5_000);
    const complete = partial("complete-object", ABANDONED_UPLOAD_AFTER_MS * 3);
    expect(await sweepAbandonedUploads()).toEqual({ removed: 1 });
    expect([existsSync(old), existsSync(fresh), existsSync(complete)]).toEqual([false, true, true]);
  });

  it("at start-up every partial goes (no upload of the new process has begun)", async () => {
    const fresh = partial("new.abc.partial", 1_000);
    expect((await sweepAbandonedUploads({ atStartup: true })).removed).toBeGreaterThanOrEqual(1);
    expect(existsSync(fresh)).toBe(false);
  });
});
