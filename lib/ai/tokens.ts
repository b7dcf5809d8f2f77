import { countTokens as countBpe, decode, encode as encodeBpe } from "gpt-tokenizer";

/**
 * Token counts with the o200k_base tokenizer (gpt-tokenizer; OpenAI gpt-4o/4.1): worst-case prices, chunk sizes,
 * context budgets, the credit formula and the persisted message token counts all use it.
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
  return pieces.length === 1 ? encodeBpe(text) : pieces.flatMap((piece) => encodeBpe(piece));
}

export function countTokens(text: string): number {
  if (!text) return 0;
  const pieces = boundedPieces(text);
  return pieces.length === 1 ? countBpe(text) : pieces.reduce((sum, piece) => sum + countBpe(piece), 0);
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
