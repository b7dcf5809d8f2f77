import { encode as encodeBpe, decode } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { chunkText, chunkTextAsync } from "@/lib/rag/chunk-text";
import { countTokens, encode, tokenWindows } from "@/lib/ai/pricing/tokens";

describe("token counting", () => {
  it("gives the tokenizer's own tokens for real text", () => {
    const text = "Credits reset monthly. Bonus packages expire after 90 days; see https://example.com/pricing?tier=pro.\n\n| a | b |";
    expect(encode(text)).toEqual(encodeBpe(text));
    expect(countTokens(text)).toBe(encodeBpe(text).length);
    expect(countTokens("")).toBe(0);
  });

  it("tokenizes megabytes without whitespace in linear time, losslessly (an upload of 'aaaa…' cannot stall the server)", () => {
    // Unbounded BPE needs ~15 s for 200,000 letters in a row and grows with the square of the run.
    const run = "a".repeat(2_000_000);
    const ids = encode(run);
    expect(decode(ids)).toBe(run);
    expect(countTokens(run)).toBe(ids.length);
    const mixed = `intro words ${"x".repeat(5_000)} middle ${"é".repeat(3_000)} end`;
    expect(decode(encode(mixed))).toBe(mixed);
    const windows = tokenWindows(mixed, 256, 32);
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.every((w) => countTokens(w) <= 256 + 2)).toBe(true);
  }, 20_000);
});

describe("chunking a large upload", () => {
  it("gives other work turns while it chunks megabytes, with the same chunks as the synchronous chunker", async () => {
    const text = `# Notes\n\n${"word ".repeat(200_000)}\n\n${"z".repeat(1_000_000)}`;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const chunks = await chunkTextAsync(text);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(3);
    expect(chunks).toEqual(chunkText(text));
    expect(chunks.every((c) => c.tokens <= 256)).toBe(true);
    expect(chunks[0].content.startsWith("Notes\n\n")).toBe(true);
  }, 30_000);
});
