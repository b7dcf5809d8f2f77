import { z } from "zod";

/**
 * A name a person chooses that may be shown in mail (an organisation's name in an invitation, a key's
 * name in a notice) or in a page: one line of printable text, trimmed, with a length limit. Line
 * breaks, other control characters and the Unicode line and paragraph separators are refused, so no
 * chosen name can start a new line in a mail's subject or body.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function oneLineText(max: number, options: { allowEmpty?: boolean } = {}) {
  return z
    .string({ error: "is required" })
    .trim()
    .min(options.allowEmpty ? 0 : 1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !UNPRINTABLE.test(value), "must be one line of printable text (no line breaks or control characters)");
}
