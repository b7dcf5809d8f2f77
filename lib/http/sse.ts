/**
 * Server-sent events framing of DESIGN.md §4, shared by every streaming endpoint:
 *   data: {"type":"text","text":"..."}            content chunks
 *   event: meta / data: {"creditsUsed":N,...}     credit information (stream, generate-content)
 *   data: {"type":"error","error":"..."}          an upstream failure mid-stream, before closing
 *   data: [DONE]                                  terminator
 */
const encoder = new TextEncoder();

export const sseText = (text: string) => encoder.encode(`data: ${JSON.stringify({ type: "text", text })}\n\n`);
export const sseError = (error: string) => encoder.encode(`data: ${JSON.stringify({ type: "error", error })}\n\n`);
export const sseMeta = (meta: Record<string, unknown>) => encoder.encode(`event: meta\ndata: ${JSON.stringify(meta)}\n\n`);
export const sseDone = () => encoder.encode("data: [DONE]\n\n");
export const sseData = (payload: unknown) => encoder.encode(`data: ${JSON.stringify(payload)}\n\n`);
/** The framing our streamed AI answers use (text chunks, `event: meta`, an error event, [DONE]). */
export const SSE_FRAMING = { text: sseText, meta: sseMeta, error: sseError, done: sseDone };

export interface SseEvent {
  event?: string;
  data: string;
}

/** Parses an SSE body into events (tests and clients). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n/)) {
    if (!block.trim()) continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    events.push({ event, data: data.join("\n") });
  }
  return events;
}
