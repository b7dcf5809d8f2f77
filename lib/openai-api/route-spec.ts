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

/** A /v1 answer with what it was charged: v1Route sends the answer with the credit headers (one way for every route). */
export class ChargedAnswer<T> {
  constructor(
    readonly answer: T,
    readonly credits: { credits: number; remaining: number },
  ) {}
}

/** The answer of a charged /v1 call (`{ answer, credits }` as the lib/openai-api functions return it). */
export const charged = <T>(result: { answer: T; credits: { credits: number; remaining: number } }) =>
  new ChargedAnswer(result.answer, result.credits);

/** The HTTP answer of a charged call: JSON, plain text (a transcription's text format) or a Response, with its credit headers. */
export function chargedResponse(result: ChargedAnswer<unknown>): Response {
  const headers = creditHeaders(result.credits);
  const { answer } = result;
  if (answer instanceof Response) {
    for (const [name, value] of Object.entries(headers)) answer.headers.set(name, value);
    return answer;
  }
  if (typeof answer === "string") return new Response(answer, { headers: { ...headers, "content-type": "text/plain; charset=utf-8" } });
  return Response.json(answer, { headers });
}
