import { AppError } from "@/lib/errors";

/** Upload content types that are indexed for retrieval (everything else is stored but not searchable). */
export const INDEXABLE_TYPES = [
  "text/plain",
  "text/markdown",
  "text/x-markdown",
  "text/csv",
  "application/json",
  "application/pdf",
] as const;

export function baseContentType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

export function isIndexableType(contentType: string): boolean {
  return (INDEXABLE_TYPES as readonly string[]).includes(baseContentType(contentType));
}

/** Whether `#` headings should be read as sections (Markdown and plain text, not CSV/JSON). */
export function isMarkdownLike(contentType: string): boolean {
  const t = baseContentType(contentType);
  return t === "text/markdown" || t === "text/x-markdown" || t === "text/plain";
}

/**
 * The searchable text of a stored file: UTF-8 text as is (a BOM removed), JSON pretty-printed so
 * keys and values become words, PDF text extracted page by page with unpdf (pdf.js). Returns null for
 * types that are not indexed.
 */
export async function extractText(bytes: Uint8Array, contentType: string): Promise<string | null> {
  const type = baseContentType(contentType);
  if (!isIndexableType(type)) return null;
  if (type === "application/pdf") {
    const { extractText: extractPdf, getDocumentProxy } = await import("unpdf");
    try {
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      const { text } = await extractPdf(pdf, { mergePages: false });
      return (Array.isArray(text) ? text : [text]).join("\n\n");
    } catch (error) {
      throw new AppError("bad_request", "The PDF could not be read", { cause: error });
    }
  }
  const text = new TextDecoder("utf-8").decode(bytes).replace(/^\uFEFF/, "");
  if (type === "application/json") {
    try {
      return JSON.stringify(JSON.parse(text), null, 1);
    } catch {
      return text;
    }
  }
  return text;
}
