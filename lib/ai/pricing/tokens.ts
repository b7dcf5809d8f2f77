import { countTokens as countO200k, decode, encode as encodeO200k } from "gpt-tokenizer";
import { countTokens as countCl100k } from "gpt-tokenizer/encoding/cl100k_base";
import type { Tokenizer } from "../catalog/model-catalog";

/**
 * Token counts. Each catalog model names the tokenizer its vendor bills by (lib/ai/catalog/model-catalog.ts):
 *   o200k   OpenAI's gpt-4o / gpt-4.1 family (exact)
 *   cl100k  OpenAI's text-embedding-3 models and older chat models (exact)
 *   bytes   a vendor whose tokenizer is not published (Anthropic, Google, self-hosted models): the
 *           UTF-8 byte count, a true upper bound for every byte-level BPE and byte-fallback
 *           SentencePiece tokenizer (no token covers less than one byte), whatever the script.
 * Chunk sizes, context budgets and persisted message counts use o200k (the default).
 *
 * BPE time grows with the square of a "word"'s length (a run without whitespace): 200,000 letters
 * in a row take ~15 s, so one uploaded file of "aaaa…" would block the server for hours. Runs longer
 * than MAX_RUN characters are therefore tokenized in MAX_RUN pieces: the same tokens for real text
 * (words are far shorter), linear time for anything else.
 */
const MAX_RUN = 400;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1}}`);

/** The text cut after every MAX_RUN characters of an unbroken run (one piece when there is none). */
function boundedPieces(text: string): string[] {
  if (!LONG_RUN.test(text)) return [text];
  const pieces: string[] = [];
  const run = new RegExp(`\\S{${MAX_RUN}}`, "g");
  let start = 0;
  for (let m = run.exec(text); m; m = run.exec(text)) {
    const end = m.index + m[0].length;
    pieces.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

export function encode(text: string): number[] {
  const pieces = boundedPieces(text);
  return pieces.length === 1 ? encodeO200k(text) : pieces.flatMap((piece) => encodeO200k(piece));
}

const BPE: Record<Exclude<Tokenizer, "bytes">, (text: string) => number> = { o200k: countO200k, cl100k: countCl100k };

/** The UTF-8 length of a text without encoding it. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

export function countTokens(text: string, tokenizer: Tokenizer = "o200k"): number {
  if (!text) return 0;
  if (tokenizer === "bytes") return utf8Bytes(text);
  const count = BPE[tokenizer];
  const pieces = boundedPieces(text);
  return pieces.length === 1 ? count(text) : pieces.reduce((sum, piece) => sum + count(piece), 0);
}

/**
 * The most tokens a text can be under any tokenizer we count with: its UTF-8 length (no BPE token is
 * shorter than a byte). Cheap: a request larger than a model's context by this bound needs no count.
 */
export const tokenUpperBound = utf8Bytes;

/** Slice of text counted between two turns of the event loop. */
const SLICE_CHARS = 32 * 1024;

/**
 * countTokens for large texts without holding the event loop: the text is counted in slices of about
 * 32 KB cut before a whitespace character (a slice boundary can only split a pre-token there, so the
 * count is the same or one token more per slice), yielding to other work between slices. `limit`:
 * stop counting once the count passes it (the caller only needs to know the text is too long).
 */
export async function countTokensYielding(text: string, tokenizer: Tokenizer = "o200k", limit = Infinity): Promise<number> {
  if (tokenizer === "bytes" || text.length <= SLICE_CHARS) return countTokens(text, tokenizer);
  let total = 0;
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    if (end < text.length) {
      const space = text.slice(end, end + 256).search(/\s/);
      if (space >= 0) end += space;
    }
    total += countTokens(text.slice(start, end), tokenizer);
    start = end;
    if (total > limit) return total;
    if (start < text.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return total;
}

/** Splits a text into windows of at most `size` tokens, each starting `size - overlap` after the previous. */
export function tokenWindows(text: string, size: number, overlap: number): string[] {
  const ids = encode(text);
  if (ids.length <= size) return [text];
  const stride = Math.max(1, size - overlap);
  const out: string[] = [];
  for (let start = 0; start < ids.length; start += stride) {
    out.push(decode(ids.slice(start, start + size)));
    if (start + size >= ids.length) break;
  }
  return out;
}

/** The last `n` tokens of a text (used to carry overlap from an oversized unit). */
export function lastTokens(text: string, n: number): string {
  const ids = encode(text);
  return ids.length <= n ? text : decode(ids.slice(ids.length - n));
}

/** Counts a word with each tokenizer, which builds their tables (called once at server start). */
export function warmTokenizers(): void {
  countO200k("warm");
  countCl100k("warm");
}
