import { countTokens as countBpe, decode, encode } from "gpt-tokenizer";

/**
 * Token counts with the chat model family's tokenizer (o200k_base, gpt-tokenizer): chunk sizes,
 * context budgets, the credit formula and the persisted message token counts all use it.
 */
export function countTokens(text: string): number {
  return text ? countBpe(text) : 0;
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
