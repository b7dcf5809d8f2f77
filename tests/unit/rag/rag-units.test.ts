import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { conversationTitle } from "@/lib/rag/prepare-ask";
import { extractText, isIndexableType } from "@/lib/rag/extract-text";
import { contentHash } from "@/lib/rag/index-document";
import { documentTitle } from "@/lib/rag/index-knowledge";
import { resolveQuestion } from "@/lib/rag/resolve-question";
import type { RetrievedChunk } from "@/lib/rag/search-chunks";
import { fuseByRank } from "@/lib/rag/search-chunks";
import { RAG, ragCreditCost } from "@/lib/rag/settings";
import { pdfWithText } from "@/tests/integration/rag/rag-test-kit";

describe("ragCreditCost", () => {
  it("is 10 + 1 per started 500 tokens of context, capped at 20", () => {
    expect(ragCreditCost(0)).toBe(10);
    expect(ragCreditCost(1)).toBe(11);
    expect(ragCreditCost(500)).toBe(11);
    expect(ragCreditCost(501)).toBe(12);
    expect(ragCreditCost(1200)).toBe(13);
    expect(ragCreditCost(RAG.topK * RAG.chunkTokens)).toBe(13);
    expect(ragCreditCost(100_000)).toBe(20);
    expect(ragCreditCost(-5)).toBe(10);
  });
});

describe("resolveQuestion", () => {
  it("takes `question` first, trimmed", () => {
    expect(resolveQuestion({ question: "  hi there ", messages: [{ role: "user", content: "other" }] })).toBe("hi there");
  });

  it("takes the last user message: string content, content parts, UI parts", () => {
    expect(
      resolveQuestion({
        messages: [
          { role: "user", content: "first" },
          { role: "assistant", content: "x" },
          { role: "user", content: "second" },
        ],
      }),
    ).toBe("second");
    expect(
      resolveQuestion({
        messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] }],
      }),
    ).toBe("a\nb");
    expect(resolveQuestion({ messages: [{ role: "user", parts: [{ type: "step-start" }, { type: "text", text: "from parts" }] }] })).toBe(
      "from parts",
    );
    expect(
      resolveQuestion({ messages: [{ role: "user", content: "", parts: [{ type: "text", text: "parts win when content is empty" }] }] }),
    ).toBe("parts win when content is empty");
  });

  it("throws validation_failed 'Missing question' when there is no text", () => {
    for (const body of [
      undefined,
      {},
      { question: "" },
      { messages: [] },
      { messages: [{ role: "system", content: "x" }] },
      { messages: [{ role: "user", content: [{ type: "image" }] }] },
    ]) {
      try {
        resolveQuestion(body as never);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("validation_failed");
        expect((error as AppError).message).toMatch(/^Missing question/);
      }
    }
  });
});

describe("fuseByRank", () => {
  const chunk = (id: string): RetrievedChunk => ({
    id,
    documentId: "d",
    ordinal: 0,
    content: id,
    tokens: 1,
    title: "t",
    path: "p",
    fileId: null,
    source: "knowledge",
    score: 0,
  });

  it("sums 1/(k + rank) over the rankings and keeps the best", () => {
    const fused = fuseByRank(
      [
        [chunk("a"), chunk("b"), chunk("c")],
        [chunk("c"), chunk("d"), chunk("a")],
      ],
      3,
      60,
    );
    expect(fused.map((c) => c.id)).toEqual(["a", "c", "b"]);
    expect(fused[0].score).toBeCloseTo(1 / 61 + 1 / 63, 10);
    expect(fused[1].score).toBeCloseTo(1 / 63 + 1 / 61, 10);
    expect(fused[2].score).toBeCloseTo(1 / 62, 10);
  });

  it("works with one empty ranking", () => {
    expect(fuseByRank([[chunk("x")], []], 5).map((c) => c.id)).toEqual(["x"]);
  });
});

describe("extractText", () => {
  it("indexes only text-like types", () => {
    expect(["text/plain", "text/markdown; charset=utf-8", "TEXT/CSV", "application/json", "application/pdf"].every(isIndexableType)).toBe(
      true,
    );
    expect(["image/png", "audio/wav", "application/octet-stream"].some(isIndexableType)).toBe(false);
  });

  it("decodes UTF-8 without a BOM, pretty-prints JSON, reads PDF text, and returns null for other types", async () => {
    expect(await extractText(Buffer.from("\uFEFFGrüße"), "text/plain")).toBe("Grüße");
    expect(await extractText(Buffer.from('{"mascot":"Percival"}'), "application/json")).toBe('{\n "mascot": "Percival"\n}');
    expect(await extractText(Buffer.from("{broken"), "application/json")).toBe("{broken");
    expect(await extractText(pdfWithText("Heliotrope (toaster) lasts 7 years"), "application/pdf")).toContain(
      "Heliotrope (toaster) lasts 7 years",
    );
    expect(await extractText(Buffer.from([1, 2, 3]), "image/png")).toBeNull();
  });

  it("answers bad_request for a PDF that cannot be read", async () => {
    await expect(extractText(Buffer.from("%PDF-1.7\nnot really"), "application/pdf")).rejects.toMatchObject({ code: "bad_request" });
  });
});

describe("titles and hashes", () => {
  it("takes a document's first H1, else its file name", () => {
    expect(documentTitle("intro\n# Plans and credits\n## Sub", "x/plans.md")).toBe("Plans and credits");
    expect(documentTitle("no heading", "guides/getting-started.md")).toBe("getting-started");
  });

  it("titles a conversation from its first question, collapsed and capped at 80 characters", () => {
    expect(conversationTitle("  What   does\nPro cost? ")).toBe("What does Pro cost?");
    const long = conversationTitle("word ".repeat(40));
    expect(long).toHaveLength(RAG.titleMaxChars);
    expect(long.endsWith("…")).toBe(true);
  });

  it("changes the content hash with the text, the title and the chunking mode", () => {
    const base = contentHash({ title: "T", text: "body" });
    expect(contentHash({ title: "T", text: "body" })).toBe(base);
    expect(contentHash({ title: "T", text: "body!" })).not.toBe(base);
    expect(contentHash({ title: "T2", text: "body" })).not.toBe(base);
    expect(contentHash({ title: "T", text: "body", markdown: false })).not.toBe(base);
  });
});
