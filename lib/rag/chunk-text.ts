import { countTokens, lastTokens, tokenWindows } from "./tokens";

export interface Chunk {
  /** Section breadcrumb + body: what is indexed, embedded and sent as context. */
  content: string;
  tokens: number;
}

export interface ChunkOptions {
  /** Upper bound of a chunk in tokens, breadcrumb included (default 256). */
  maxTokens?: number;
  /** Tokens of the previous chunk repeated at the start of the next one in the same section (default 48). */
  overlapTokens?: number;
  /** Treat `#` lines as Markdown headings (default true). */
  markdown?: boolean;
}

/** Bump when the chunking changes: documents are re-indexed when their hash (which includes it) changes. */
export const CHUNKER_VERSION = "3";

interface Section {
  heading: string;
  body: string;
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

/** Splits Markdown into sections, each carrying its heading path ("Plans › Pro"). */
function splitSections(text: string, markdown: boolean): Section[] {
  if (!markdown) return [{ heading: "", body: text }];
  const sections: Section[] = [];
  const path: string[] = [];
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const body = lines.join("\n").trim();
    if (body) sections.push({ heading: path.filter(Boolean).join(" › "), body });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const m = inFence ? null : HEADING.exec(line);
    if (m) {
      flush();
      const level = m[1].length;
      path.length = level - 1;
      path[level - 1] = m[2].trim();
      continue;
    }
    lines.push(line);
  }
  flush();
  return sections;
}

interface Unit {
  text: string;
  /** How the unit joins the one before it: paragraphs "\n\n", lines of a table or list "\n", sentences " ". */
  sep: string;
}

/** Paragraphs, then lines or sentences for paragraphs that do not fit, then token windows for pieces that do not. */
function units(body: string, budget: number, overlap: number): Unit[] {
  const out: Unit[] = [];
  for (const paragraph of body.split(/\n\s*\n/)) {
    const p = paragraph.trim();
    if (!p) continue;
    if (countTokens(p) <= budget) {
      out.push({ text: p, sep: "\n\n" });
      continue;
    }
    // Lists and tables: keep lines whole; prose: split into sentences.
    const byLine = p.includes("\n");
    const pieces = byLine ? p.split(/\n/) : p.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(`*\-])/);
    let first = true;
    for (const piece of pieces) {
      const text = piece.trim();
      if (!text) continue;
      const sep = first ? "\n\n" : byLine ? "\n" : " ";
      first = false;
      if (countTokens(text) <= budget) out.push({ text, sep });
      else tokenWindows(text, budget, overlap).forEach((w, i) => out.push({ text: w, sep: i === 0 ? sep : " " }));
    }
  }
  return out;
}

/**
 * Token-aware chunking with overlap: Markdown sections are chunked separately (a chunk never spans
 * two sections) and every chunk starts with its section's heading path, so a chunk is
 * self-describing for full-text ranking, embeddings and the model's context. Units (paragraphs,
 * sentences, token windows) are packed greedily up to `maxTokens`; the next chunk of the same section
 * repeats the trailing units of the previous one up to `overlapTokens`.
 */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const maxTokens = options.maxTokens ?? 256;
  const overlapTokens = Math.min(options.overlapTokens ?? 48, Math.floor(maxTokens / 2));
  const chunks: Chunk[] = [];
  for (const section of splitSections(text.replace(/\u0000/g, ""), options.markdown ?? true)) {
    const prefix = section.heading ? `${section.heading}\n\n` : "";
    const budget = Math.max(32, maxTokens - countTokens(prefix));
    let current: (Unit & { tokens: number })[] = [];
    let size = 0;
    let fresh = 0; // units in `current` that are not overlap carried from the previous chunk
    const emit = () => {
      if (fresh === 0) return;
      const content = prefix + current.map((u, i) => (i === 0 ? u.text : u.sep + u.text)).join("");
      chunks.push({ content, tokens: countTokens(content) });
    };
    for (const unit of units(section.body, budget, overlapTokens)) {
      const tokens = countTokens(unit.text);
      if (size + tokens + (current.length ? 1 : 0) > budget && fresh > 0) {
        emit();
        // Carry trailing units (or the tail of the last one) as overlap.
        const carried: (Unit & { tokens: number })[] = [];
        let carriedSize = 0;
        for (let i = current.length - 1; i >= 0; i--) {
          if (carriedSize + current[i].tokens > overlapTokens) break;
          carried.unshift(current[i]);
          carriedSize += current[i].tokens;
        }
        if (carried.length === 0 && overlapTokens > 0 && current.length) {
          const tail = lastTokens(current[current.length - 1].text, overlapTokens);
          carried.push({ text: tail, sep: " ", tokens: countTokens(tail) });
          carriedSize = carried[0].tokens;
        }
        // Never let the overlap squeeze out the new unit.
        while (carried.length && carriedSize + tokens + carried.length > budget) carriedSize -= carried.shift()!.tokens;
        current = carried;
        size = carriedSize + Math.max(0, carried.length - 1);
        fresh = 0;
      }
      size += tokens + (current.length ? 1 : 0);
      current.push({ ...unit, tokens });
      fresh++;
    }
    emit();
  }
  return chunks;
}
