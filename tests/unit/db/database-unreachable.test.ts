import { describe, expect, it } from "vitest";
import { isDatabaseUnreachable, markDatabaseConnectionError } from "@/lib/db/outage";

describe("isDatabaseUnreachable", () => {
  it("counts what the driver and Prisma say when the server is gone", () => {
    expect(isDatabaseUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isDatabaseUnreachable(new Error("Server has closed the connection."))).toBe(true);
    expect(isDatabaseUnreachable(Object.assign(new Error("x"), { code: "57P01" }))).toBe(true);
    expect(isDatabaseUnreachable(new Error("wrapper", { cause: Object.assign(new Error("y"), { code: "P1017" }) }))).toBe(true);
  });

  it("does not count a bare socket error (an S3 or provider call fails the same way) unless a database connection reported it", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(isDatabaseUnreachable(reset)).toBe(false);
    markDatabaseConnectionError(reset);
    expect(isDatabaseUnreachable(reset)).toBe(true);
    expect(isDatabaseUnreachable(new Error("query failed", { cause: reset }))).toBe(true);
    expect(isDatabaseUnreachable(new Error('relation "x" does not exist'))).toBe(false);
  });
});
