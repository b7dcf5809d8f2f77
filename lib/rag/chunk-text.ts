import { countTokens, lastTokens, tokenWindows } from "@/lib/ai/pricing/tokens";

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
export const CHUNKER_VERSION = "4";

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

/** Beyond this many characters a piece cannot fit a chunk (no token is that long): it is not counted whole. */
const MAX_CHARS_PER_TOKEN = 64;
/** Oversized pieces are windowed in slices of this many characters, so no single step blocks for long. */
const SLICE_CHARS = 16_384;

/** Cuts a long text into slices of at most SLICE_CHARS, at the last whitespace of a slice when there is one. */
function* slices(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > SLICE_CHARS) {
    let end = start + SLICE_CHARS;
    const space = text.lastIndexOf(" ", end);
    if (space > start + SLICE_CHARS / 2) end = space + 1;
    yield text.slice(start, end);
    start = end;
  }
  yield text.slice(start);
}

const fits = (text: string, budget: number) => text.length <= budget * MAX_CHARS_PER_TOKEN && countTokens(text) <= budget;

/** Paragraphs, then lines or sentences for paragraphs that do not fit, then token windows for pieces that do not. */
function* units(body: string, budget: number, overlap: number): Generator<Unit> {
  for (const paragraph of body.split(/\n\s*\n/)) {
    const p = paragraph.trim();
    if (!p) continue;
    if (fits(p, budget)) {
      yield { text: p, sep: "\n\n" };
      continue;
    }
    // Lists and tables: keep lines whole; prose: split into sentences.
    const byLine = p.includes("\n");
    const pieces = byLine ? p.split(/\n/) : p.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(`*\-])/);
    let first = true;
    for (const piece of pieces) {
      const text = piece.trim();
      if (!text) continue;
      let sep = first ? "\n\n" : byLine ? "\n" : " ";
      first = false;
      if (fits(text, budget)) {
        yield { text, sep };
        continue;
      }
      for (const slice of slices(text)) {
        for (const window of tokenWindows(slice, budget, overlap)) {
          yield { text: window, sep };
          sep = " ";
        }
      }
    }
  }
}

/**
 * Token-aware chunking with overlap: Markdown sections are chunked separately (a chunk never spans
 * two sections) and every chunk starts with its section's heading path, so a chunk is
 * self-describing for full-text ranking, embeddings and the model's context. Units (paragraphs,
 * sentences, token windows) are packed greedily up to `maxTokens`; the next chunk of the same section
 * repeats the trailing units of the previous one up to `overlapTokens`.
 */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const chunks: Chunk[] = [];
  for (const chunk of chunkSteps(text, options)) if (chunk) chunks.push(chunk);
  return chunks;
}

/**
 * chunkText for the server: the same chunks, but it gives the event loop a turn every ~10 ms, so
 * indexing a 20 MB upload never stalls other requests.
 */
export async function chunkTextAsync(text: string, options: ChunkOptions = {}): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  let turn = Date.now();
  for (const chunk of chunkSteps(text, options)) {
    if (chunk) chunks.push(chunk);
    if (Date.now() - turn >= 10) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = Date.now();
    }
  }
  return chunks;
}

/** The chunker as steps: yields each chunk when it is complete and undefined after each unit. */
function* chunkSteps(text: string, options: ChunkOptions): Generator<Chunk | undefined> {
  const maxTokens = options.maxTokens ?? 256;
  const overlapTokens = Math.min(options.overlapTokens ?? 48, Math.floor(maxTokens / 2));
  const ready: Chunk[] = [];
  for (const section of splitSections(text.replace(/\u0000/g, ""), options.markdown ?? true)) {
    const prefix = section.heading ? `${section.heading}\n\n` : "";
    const budget = Math.max(32, maxTokens - countTokens(prefix));
    let current: (Unit & { tokens: number })[] = [];
    let size = 0;
    let fresh = 0; // units in `current` that are not overlap carried from the previous chunk
    const emit = () => {
      if (fresh === 0) return;
      const content = prefix + current.map((u, i) => (i === 0 ? u.text : u.sep + u.text)).join("");
      ready.push({ content, tokens: countTokens(content) });
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
      yield ready.shift();
      while (ready.length) yield ready.shift();
    }
    emit();
    while (ready.length) yield ready.shift();
  }
}
