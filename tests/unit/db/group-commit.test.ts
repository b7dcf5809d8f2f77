import { describe, expect, it } from "vitest";
import { groupCommit } from "@/lib/db/group-commit";

/** Calls of one event-loop turn go out together; what happens to them when the group's statement fails. */
function grouped(failure: Error) {
  const alone: number[] = [];
  const write = groupCommit<number, number>({
    maxBatch: 8,
    sameBatch: () => true,
    writeOne: async (n) => {
      alone.push(n);
      return n * 10;
    },
    writeMany: async () => {
      throw failure;
    },
  });
  return { write, alone };
}

describe("groupCommit", () => {
  it("writes a group the database refused again call by call (nothing of it was written)", async () => {
    const { write, alone } = grouped(Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }));
    expect(await Promise.all([1, 2, 3].map(write))).toEqual([10, 20, 30]);
    expect(alone).toEqual([1, 2, 3]);
  });

  it("does not write again a group whose connection failed (it may have been committed): every caller hears the outage", async () => {
    const { write, alone } = grouped(new Error("Connection terminated unexpectedly"));
    const results = await Promise.allSettled([1, 2, 3].map(write));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(alone).toEqual([]);
  });
});
