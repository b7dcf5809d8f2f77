import { describe, expect, it } from "vitest";
import { chunkText } from "@/lib/rag/chunk-text";
import { countTokens } from "@/lib/ai/pricing/tokens";

const sentence = (i: number) => `Sentence number ${i} talks about credits, plans and the upload limits of the service.`;

describe("chunkText", () => {
  it("returns nothing for empty or blank text", () => {
    expect(chunkText("")).toEqual([]);
    expect(chunkText("  \n\n  ")).toEqual([]);
  });

  it("keeps a short document in one chunk whose token count is exact", () => {
    const [chunk, ...rest] = chunkText("Just one paragraph.");
    expect(rest).toEqual([]);
    expect(chunk).toEqual({ content: "Just one paragraph.", tokens: countTokens("Just one paragraph.") });
  });

  it("never exceeds maxTokens and overlaps consecutive chunks of a section", () => {
    const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join(" ");
    const chunks = chunkText(text, { maxTokens: 100, overlapTokens: 30, markdown: false });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      expect(c.tokens).toBeLessThanOrEqual(100);
      expect(c.tokens).toBe(countTokens(c.content));
    }
    for (let i = 1; i < chunks.length; i++) {
      const lastOfPrevious = chunks[i - 1].content.split(/(?<=\.)\s+/).at(-1)!;
      expect(chunks[i].content.startsWith(lastOfPrevious), `chunk ${i} starts with the end of chunk ${i - 1}`).toBe(true);
    }
    // Every sentence survives.
    const all = chunks.map((c) => c.content).join(" ");
    for (let i = 0; i < 60; i++) expect(all).toContain(sentence(i));
  });

  it("starts every chunk with its heading path and never spans two sections", () => {
    const md = [
      "# Guide",
      "Intro text.",
      "## Plans",
      "The Pro plan has 5,000 credits.",
      "### Pro",
      "Details about Pro.",
      "## Files",
      "Upload limit is 50 MB.",
    ].join("\n\n");
    const chunks = chunkText(md);
    expect(chunks.map((c) => c.content)).toEqual([
      "Guide\n\nIntro text.",
      "Guide › Plans\n\nThe Pro plan has 5,000 credits.",
      "Guide › Plans › Pro\n\nDetails about Pro.",
      "Guide › Files\n\nUpload limit is 50 MB.",
    ]);
  });

  it("ignores # lines inside code fences and in non-Markdown text", () => {
    const md = "# Title\n\n```bash\n# not a heading\necho hi\n```";
    expect(chunkText(md)).toHaveLength(1);
    expect(chunkText(md)[0].content).toContain("# not a heading");
    expect(chunkText("# a,b\n1,2", { markdown: false })[0].content).toBe("# a,b\n1,2");
  });

  it("splits a single huge sentence into token windows that still overlap", () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ");
    const chunks = chunkText(words, { maxTokens: 120, overlapTokens: 20, markdown: false });
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) expect(c.tokens).toBeLessThanOrEqual(125);
    expect(chunks.at(-1)!.content).toContain("w1999");
  });

  it("keeps table and list lines whole when a block is too large", () => {
    const rows = Array.from({ length: 80 }, (_, i) => `| tier-${i} | ${i * 100} credits | $${i}.99 |`).join("\n");
    const chunks = chunkText(`# Table\n\n${rows}`, { maxTokens: 120 });
    for (const c of chunks)
      for (const line of c.content.split("\n").slice(2)) expect(line).toMatch(/^\| tier-\d+ \| \d+ credits \| \$\d+\.99 \|$/);
  });
});
