import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import { AppError } from "@/lib/errors";
import { AiAbortError } from "./abort";
import { assembleChat } from "./assemble-chat";
import { runProviderStream, unsupported, type Deadline } from "./provider-call";
import type { AiProvider, ChatMessage, ChatRequest, ChatResult, StreamPart, TokenUsage } from "./provider-types";
import { parseRetryAfter, upstreamError } from "./upstream-error";

/**
 * Anthropic's Messages API through its SDK (@anthropic-ai/sdk, the only file importing it): chat,
 * streaming and images in messages. Anthropic has no embeddings, image generation or transcription:
 * those answer a 400 naming the model's provider. Usage: input tokens include the prompt-cache reads
 * and writes (Anthropic counts them apart), cachedPromptTokens are the reads.
 */
export interface AnthropicProviderOptions {
  name: string;
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
}

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlock = Anthropic.Messages.ContentBlockParam;

/** The data URL's media type and bytes, as Anthropic's base64 image source. */
function imageSource(dataUrl: string): Anthropic.Messages.ImageBlockParam {
  const match = /^data:(image\/[a-z]+);base64,(.*)$/s.exec(dataUrl);
  const media = (match?.[1] === "image/jpg" ? "image/jpeg" : match?.[1]) as "image/png" | "image/jpeg" | "image/gif" | "image/webp";
  return { type: "image", source: { type: "base64", media_type: media, data: match?.[2] ?? "" } };
}

/** System messages become the system prompt; the rest alternate user/assistant (tool turns as user context). */
function toAnthropic(messages: ChatMessage[]): { system?: string; messages: MessageParam[] } {
  const system: string[] = [];
  const out: MessageParam[] = [];
  for (const m of messages) {
    const text = typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
    if (m.role === "system") {
      system.push(text);
      continue;
    }
    const role = m.role === "assistant" ? "assistant" : "user";
    const content: ContentBlock[] =
      typeof m.content === "string"
        ? [
            {
              type: "text",
              text:
                m.role === "tool" || m.role === "function" ? `[${m.role}${m.name ? ` ${m.name}` : ""} output]\n${m.content}` : m.content,
            },
          ]
        : m.content.map((p) => (p.type === "text" ? { type: "text" as const, text: p.text } : imageSource(p.image)));
    const last = out[out.length - 1];
    // Anthropic wants alternating roles: consecutive turns of one role are merged.
    if (last && last.role === role && Array.isArray(last.content)) (last.content as ContentBlock[]).push(...content);
    else out.push({ role, content });
  }
  return { system: system.length ? system.join("\n\n") : undefined, messages: out };
}

function usageOf(
  u:
    | {
        input_tokens?: number | null;
        output_tokens?: number | null;
        cache_read_input_tokens?: number | null;
        cache_creation_input_tokens?: number | null;
      }
    | undefined,
): TokenUsage {
  const cached = u?.cache_read_input_tokens ?? 0;
  return {
    promptTokens: (u?.input_tokens ?? 0) + cached + (u?.cache_creation_input_tokens ?? 0),
    completionTokens: u?.output_tokens ?? 0,
    ...(cached ? { cachedPromptTokens: cached } : {}),
  };
}

/**
 * Maps the SDK's errors to our vocabulary (lib/ai/providers/upstream-error.ts). Our own deadline aborts the
 * SDK's request too (it then throws APIUserAbortError): that is a timeout, not the client leaving.
 * `opened`: the provider had accepted the request (its stream began), so whatever fails now was received.
 */
function mapError(error: unknown, what: string, d: Deadline, timeoutMs: number, opened = false): Error {
  if (error instanceof AppError || error instanceof AiAbortError) return error;
  if (d.timedOut() || error instanceof APIConnectionTimeoutError) return upstreamError({ kind: "timeout" }, what, timeoutMs, error);
  if (d.callerAborted() || error instanceof APIUserAbortError) return new AiAbortError();
  if (error instanceof APIError && error.status !== undefined) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    return upstreamError(
      {
        kind: "http",
        status: error.status,
        code: body?.error?.type ?? null,
        message: body?.error?.message ?? error.message,
        retryAfterMs: parseRetryAfter(error.headers?.get?.("retry-after")),
      },
      what,
      timeoutMs,
      error,
      opened ? "received" : "refused",
    );
  }
  if (opened) return upstreamError({ kind: "invalid" }, what, timeoutMs, error, "received");
  return upstreamError({ kind: error instanceof APIConnectionError ? "network" : "invalid" }, what, timeoutMs, error);
}

export function createAnthropicProvider(options: AnthropicProviderOptions): AiProvider {
  // Retries are the router's (lib/ai/providers/router.ts): the SDK's own would double cost and hide failures.
  const client = new Anthropic({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0, timeout: options.timeoutMs });
  const request = (req: ChatRequest) => {
    const { system, messages } = toAnthropic(req.messages);
    return {
      model: req.model as string,
      // Anthropic requires max_tokens; the quote always sets it (lib/ai/pricing/quote-call.ts).
      max_tokens: req.maxTokens ?? 4096,
      messages,
      ...(system ? { system } : {}),
      ...(req.temperature !== undefined ? { temperature: Math.min(1, req.temperature) } : {}),
    };
  };

  /**
   * Streams the answer (also for a JSON chat: a call cut short is then billed for what was
   * produced), reporting the usage as it goes: message_start's prompt tokens at once, then each
   * message_delta's output count.
   */
  function streamChat(req: ChatRequest): AsyncIterable<StreamPart> {
    const timeoutMs = req.timeoutMs ?? options.timeoutMs;
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    let model = req.model as string;
    return runProviderStream(
      { provider: options.name, model, signal: req.signal, timeoutMs, mapError },
      (signal) => client.messages.create({ ...request(req), stream: true }, { signal, timeout: timeoutMs }),
      function* (event): Iterable<StreamPart> {
        if (event.type === "message_start") {
          model = event.message.model ?? model;
          Object.assign(usage, usageOf(event.message.usage));
          yield { type: "usage", model, ...usage };
        } else if (event.type === "content_block_delta" && event.delta.type === "text_delta" && event.delta.text) {
          yield { type: "text", text: event.delta.text };
        } else if (event.type === "message_delta") {
          if (event.delta.stop_reason === "refusal") throw upstreamError({ kind: "refused" }, "chat completion", timeoutMs);
          usage.completionTokens = event.usage?.output_tokens ?? usage.completionTokens;
          yield { type: "usage", model, ...usage };
        }
      },
    );
  }

  return {
    name: options.name,
    offline: false,
    streamChat,
    chat: (req: ChatRequest): Promise<ChatResult> => assembleChat(streamChat(req), req.model as string),
    embed: () => Promise.reject(unsupported(options.name, "embeddings")),
    transcribe: () => Promise.reject(unsupported(options.name, "speech to text")),
    generateImage: () => Promise.reject(unsupported(options.name, "image generation")),
  };
}
