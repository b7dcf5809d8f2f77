/** What every /v1 route documents and answers besides its body. */
export const V1_ERRORS = [401, 403, 404, 413, 429, 503];

export const V1_HEADERS = {
  "X-Credits-Charged": "credits this call was charged (JSON answers)",
  "X-Credits-Remaining": "usable credits after the call",
  "X-Credits-Reserved": "streams: credits reserved for the call; the final charge is in the closing usage chunk",
};

export function creditHeaders(c: { credits: number; remaining: number }): Record<string, string> {
  return { "X-Credits-Charged": String(c.credits), "X-Credits-Remaining": String(c.remaining) };
}
