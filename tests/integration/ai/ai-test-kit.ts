import { afterAll, afterEach, expect } from "vitest";
import { drainSettlements } from "@/lib/credits";
import { closeDb, db } from "@/lib/db/client";
import { setEnv } from "@/tests/helpers/env";
import { startOpenAiStub, type OpenAiStub } from "@/tests/helpers/openai-stub";

/** Parsed JSON of arbitrary shape (wire payloads). */

type Loose = any;

/** Shared fixtures of the AI integration tests: the stub as the configured provider, balances, ledger. */
export async function useStubProvider(): Promise<{ stub: OpenAiStub; restore: () => void }> {
  const stub = await startOpenAiStub();
  const restore = setEnv({ OPENAI_API_KEY: "sk-test-stub", OPENAI_BASE_URL: stub.url });
  return { stub, restore };
}

/**
 * The stub as the configured provider for a whole test file: started now (top-level await), its
 * queued behaviours and records cleared after each test, closed with the database after all of them.
 */
export async function stubProviderForFile(): Promise<OpenAiStub> {
  const { stub, restore } = await useStubProvider();
  afterEach(() => stub.reset());
  afterAll(async () => {
    restore();
    await stub.close();
    await closeDb();
  });
  return stub;
}

export async function balanceOf(userId: string): Promise<number> {
  const prisma = await db();
  const row = await prisma.creditBalance.findUnique({ where: { userId } });
  return row?.subscriptionCredits ?? 0;
}

/**
 * Waits until the user's balance is `credits` (a settlement written after the response, as a cut
 * stream's is), failing with the last balance seen after `ms`.
 */
export async function waitForBalance(userId: string, credits: number, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  let seen = await balanceOf(userId);
  while (seen !== credits && Date.now() < until) {
    await drainSettlements();
    await new Promise((r) => setTimeout(r, 20));
    seen = await balanceOf(userId);
  }
  expect(seen).toBe(credits);
}

/** Sets the subscription credits directly (test setup only). */
export async function setBalance(userId: string, credits: number): Promise<void> {
  const prisma = await db();
  await prisma.creditBalance.update({ where: { userId }, data: { subscriptionCredits: credits } });
}

export async function ledger(userId: string) {
  const prisma = await db();
  return prisma.creditTransaction.findMany({ where: { userId, type: { in: ["usage", "refund"] } }, orderBy: { createdAt: "asc" } });
}

/** Reads a whole SSE body into events (event name + parsed data). */
export async function readSse(response: Response): Promise<{ event?: string; data: string; json?: Loose }[]> {
  const text = await response.text();
  return parseEvents(text);
}

export function parseEvents(text: string): { event?: string; data: string; json?: Loose }[] {
  const out: { event?: string; data: string; json?: Loose }[] = [];
  for (const block of text.split("\n\n")) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trim());
    }
    const joined = data.join("\n");
    let json: Loose;
    try {
      json = joined === "[DONE]" ? undefined : JSON.parse(joined);
    } catch {
      json = undefined;
    }
    out.push({ event, data: joined, json });
  }
  return out;
}
