/** The charged stream both AI benches send, and the same request as our provider client sends it upstream. */

/** The model the stub is asked for (any name: the stub answers every model). */
export const STREAM_MODEL = "gpt-4o-mini";
/** 17 words: the stub answers "stub reply to: <prompt>", one chunk per word (20 chunks). */
export const STREAM_PROMPT = "Explain in one short paragraph why streaming answers feel faster than waiting for the whole reply";

/** The body of `POST /api/ai/stream`. */
export const streamBody = () => JSON.stringify({ messages: [{ role: "user", content: STREAM_PROMPT }] });

/** What our provider client sends upstream for that body (the "same request", sent to the stub directly). */
export const directStreamBody = () =>
  JSON.stringify({
    model: STREAM_MODEL,
    messages: [{ role: "user", content: STREAM_PROMPT }],
    stream: true,
    stream_options: { include_usage: true },
  });
