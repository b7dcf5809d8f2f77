import { randomBytes } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import {
  applyBefore,
  pieces,
  readJson,
  roughTokens,
  sendJson,
  sleep,
  stubControls,
  trackStream,
  listenStub,
  type StubControls,
} from "./stub-kit";

/**
 * A local server speaking Anthropic's Messages API (docs.anthropic.com/en/api/messages and
 * .../messages-streaming) on 127.0.0.1, for the Anthropic adapter's tests and the benchmark:
 *   POST /v1/messages   x-api-key (or Authorization: Bearer, as SDK 1.x sends) + anthropic-version; JSON answer, or with `stream: true` the SSE
 *                       events message_start (input usage), content_block_start, ping,
 *                       content_block_delta (text_delta) per word, content_block_stop, message_delta
 *                       (stop_reason, output usage), message_stop
 * Errors are Anthropic's body `{"type":"error","error":{"type":"rate_limit_error","message":...}}`
 * with its status (400 invalid_request_error, 401 authentication_error, 429 rate_limit_error with
 * retry-after, 500 api_error, 529 overloaded_error); a refusal is `stop_reason: "refusal"`.
 */
type Endpoint = "messages" | "stream";
export interface AnthropicStub extends StubControls<Endpoint> {
  url: string;
  close(): Promise<void>;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

type Loose = any;

function lastUserText(body: Loose): string {
  const last = [...(body.messages ?? [])].reverse().find((m: Loose) => m.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content ?? []).map((p: Loose) => (p.type === "text" ? p.text : `[${p.type}]`)).join(" ");
}

export async function startAnthropicStub(): Promise<AnthropicStub> {
  const controls = stubControls<Endpoint>({ messages: "stream" });
  const error = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
    sendJson(
      res,
      status,
      { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message }, request_id: `req_${randomBytes(6).toString("hex")}` },
      headers,
    );

  const server: Server = createServer(async (req, res) => {
    try {
      if (req.method !== "POST" || !(req.url ?? "").startsWith("/v1/messages")) return error(res, 404, `no route ${req.method} ${req.url}`);
      if (!req.headers["x-api-key"] && !req.headers.authorization?.startsWith("Bearer "))
        return error(res, 401, "x-api-key or Authorization: Bearer header is required");
      if (!req.headers["anthropic-version"]) return error(res, 400, "anthropic-version header is required");
      const body = (await readJson(req)) as Loose;
      if (typeof body.max_tokens !== "number") return error(res, 400, "max_tokens: Field required");
      const endpoint: Endpoint = body.stream ? "stream" : "messages";
      controls.requests.push({ endpoint, path: req.url ?? "", headers: req.headers, body });
      const b = controls.behaviourFor(endpoint);
      if (await applyBefore(b, res, (status, message, headers) => error(res, status, message, headers))) return;
      const text = b?.kind === "reply" ? b.text : b?.kind === "refuse" ? "" : `stub reply to: ${lastUserText(body)}`;
      const input = controls.usage?.input ?? roughTokens([body.system, body.messages]);
      const output = controls.usage?.output ?? pieces(text).length;
      const usage = {
        input_tokens: input,
        output_tokens: output,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: controls.usage?.cached ?? 0,
      };
      const message = {
        id: `msg_${randomBytes(8).toString("hex")}`,
        type: "message",
        role: "assistant",
        model: body.model,
        stop_sequence: null,
      };
      const stopReason = b?.kind === "refuse" ? "refusal" : "end_turn";
      if (!body.stream) {
        return sendJson(res, 200, { ...message, content: text ? [{ type: "text", text }] : [], stop_reason: stopReason, usage });
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      const stream = trackStream(controls as StubControls<string>, res);
      const event = (name: string, data: unknown) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      event("message_start", {
        type: "message_start",
        message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
      });
      event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
      event("ping", { type: "ping" });
      const words = text ? pieces(text) : [];
      for (let i = 0; i < words.length; i++) {
        if (b?.kind === "break" && i >= b.afterChunks) {
          stream.cut();
          await sleep(30);
          return res.destroy();
        }
        if (controls.chunkDelayMs > 0) await sleep(controls.chunkDelayMs);
        if (res.destroyed) return;
        event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: words[i] } });
      }
      event("content_block_stop", { type: "content_block_stop", index: 0 });
      event("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: output },
      });
      event("message_stop", { type: "message_stop" });
      stream.finish();
      res.end();
    } catch (e) {
      if (!res.headersSent) error(res, 500, `stub crashed: ${(e as Error).message}`);
      else res.destroy();
    }
  });
  return listenStub(server, controls);
}
