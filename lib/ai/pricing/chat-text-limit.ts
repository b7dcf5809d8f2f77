import { offeredModels } from "../providers/offered-models";

/**
 * Bytes of text per token the chat body bound allows: twice a typical text's four. (A token can be
 * up to 128 bytes, a run of spaces, but a prompt made of such tokens is not one anybody sends.)
 */
export const TEXT_BYTES_PER_TOKEN = 8;
/** Room for the JSON around the text: roles, names, options. */
const FRAMING_BYTES = 64 * 1024;
const DEFAULT_CONTEXT = 128_000;

/**
 * The most text a chat body may carry besides its images: the largest context of the chat models on
 * offer at TEXT_BYTES_PER_TOKEN, so a body too large for any model is refused before it is parsed or
 * counted (lib/http/read-body.ts); the exact count against the chosen model follows in the quote.
 */
export function chatTextLimitBytes(): number {
  let context = 0;
  for (const m of offeredModels()) if (m.kind === "chat") context = Math.max(context, m.contextWindow ?? DEFAULT_CONTEXT);
  return (context || DEFAULT_CONTEXT) * TEXT_BYTES_PER_TOKEN + FRAMING_BYTES;
}
