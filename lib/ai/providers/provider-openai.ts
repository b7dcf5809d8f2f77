import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError, toFile } from "openai";
import { AppError } from "@/lib/errors";
import { AiAbortError } from "./abort";
import { toIso6391 } from "../language";
import { assembleChat } from "./assemble-chat";
import { createWireClient, isInStream, isNotSent, UpstreamConnectionError, UpstreamHttpError } from "./openai-wire";
import { runProviderCall, runProviderStream, type Deadline } from "./provider-call";
import { parseRetryAfter, upstreamError } from "./upstream-error";
import type {
  AiProvider,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ImageRequest,
  ImageResult,
  StreamPart,
  TranscribeRequest,
} from "./provider-types";
import type { AiSettings } from "../settings";

/**
 * The OpenAI-compatible adapter: the ONLY file importing the openai SDK. It speaks the endpoints
 * every OpenAI-compatible server has (chat completions incl. SSE with include_usage, audio
 * transcriptions verbose_json, images b64_json, embeddings) and maps every upstream failure to an
 * AppError: content-policy refusals -> content_policy (400), everything else -> upstream_failed (500)
 * with a message naming what went wrong (never the key, never the upstream body). Chat completions,
 * the hot path, go through a lean pooled HTTP client (openai-wire.ts) that sends the same request the
 * SDK would; uploads, images and embeddings use the SDK.
 */
export interface OpenAiProviderOptions {
  /** The provider's name in routes and metrics: "openai", or an OpenAI-compatible provider's own (AI_PROVIDERS). */
  name?: string;
  apiKey: string;
  baseURL?: string;
  settings: AiSettings;
}

type OpenAiMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type CompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk;

function toOpenAiMessages(messages: ChatMessage[]): OpenAiMessage[] {
  return messages.map((m) => {
    const content =
      typeof m.content === "string"
        ? m.content
        : m.content.map((part) =>
            part.type === "text"
              ? ({ type: "text", text: part.text } as const)
              : ({ type: "image_url", image_url: { url: part.image } } as const),
          );
    switch (m.role) {
      case "system":
        return { role: "system", content: typeof content === "string" ? content : textOnly(m), ...(m.name ? { name: m.name } : {}) };
      case "assistant":
        return { role: "assistant", content: typeof content === "string" ? content : textOnly(m), ...(m.name ? { name: m.name } : {}) };
      case "function":
        return { role: "function", name: m.name ?? "function", content: typeof content === "string" ? content : textOnly(m) };
      case "tool":
        // Without a tool_call_id the upstream rejects "tool" turns; relay them as named user context.
        return {
          role: "user",
          content: `[tool${m.name ? ` ${m.name}` : ""} output]\n${typeof content === "string" ? content : textOnly(m)}`,
        };
      default:
        return { role: "user", content, ...(m.name ? { name: m.name } : {}) } as OpenAiMessage;
    }
  });
}

function textOnly(m: ChatMessage): string {
  return typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
}

/** An HTTP failure answered by the provider, from the SDK (APIError) or from the chat client. */
type HttpFailure = {
  status: number;
  code?: string | null | number;
  type?: string | null;
  message: string;
  headers?: { get(name: string): string | null } | null;
};

function httpFailure(error: unknown): HttpFailure | null {
  if (error instanceof UpstreamHttpError) return error;
  if (error instanceof APIError && error.status !== undefined) {
    return {
      status: error.status,
      code: error.code ?? null,
      type: error.type ?? null,
      message: error.message ?? "",
      headers: error.headers ?? null,
    };
  }
  return null;
}

/** The connection failed before any answer (SDK or chat client). */
const isConnectionFailure = (error: unknown) =>
  error instanceof UpstreamConnectionError || (error instanceof APIError && error.status === undefined);

function isOutOfQuota(error: HttpFailure): boolean {
  return error.code === "insufficient_quota" || error.type === "insufficient_quota";
}

/**
 * Maps any error of an upstream call to an AppError (or AiAbortError when the caller aborted), with
 * how far the request got: a request aborted before it left was not sent; an error the provider
 * sent inside its 2xx stream, or a failure while its answer was being read, was received.
 */
export function mapUpstreamError(error: unknown, what: string, d: Deadline, timeoutMs: number): Error {
  if (error instanceof AppError || error instanceof AiAbortError) return error;
  const notSent = isNotSent(error);
  if (d.callerAborted()) return new AiAbortError(!notSent);
  if (d.timedOut() || error instanceof APIConnectionTimeoutError)
    return upstreamError({ kind: "timeout" }, what, timeoutMs, error, notSent ? "not_sent" : "received");
  if (error instanceof APIUserAbortError) return new AiAbortError();
  const http = httpFailure(error);
  if (http && isInStream(error)) {
    return upstreamError(
      {
        kind: "http",
        status: http.status,
        code: http.code === null || http.code === undefined ? null : String(http.code),
        message: http.message,
      },
      what,
      timeoutMs,
      error,
      "received",
    );
  }
  if (http) {
    return upstreamError(
      {
        kind: "http",
        status: http.status,
        code: http.code === null || http.code === undefined ? null : String(http.code),
        message: http.message,
        retryAfterMs: parseRetryAfter(http.headers?.get?.("retry-after")),
        outOfQuota: isOutOfQuota(http),
      },
      what,
      timeoutMs,
      error,
    );
  }
  return upstreamError({ kind: isConnectionFailure(error) ? "network" : "invalid" }, what, timeoutMs, error);
}

export function createOpenAiProvider(options: OpenAiProviderOptions): AiProvider {
  const { settings } = options;
  const name = options.name ?? "openai";
  // Retries are off: a retry would double the upstream cost and the latency the caller waits for;
  // failures are refunded and reported instead.
  const client = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL, maxRetries: 0, timeout: settings.timeoutMs });
  const wire = createWireClient({ apiKey: options.apiKey, baseURL: options.baseURL, userAgent: "subscription-ai-backend" });
  // Always streamed with the usage chunk: a call cut short is then billed for what was produced.
  const chatBody = (req: ChatRequest) => ({
    model: req.model ?? settings.chatModel,
    messages: toOpenAiMessages(req.messages),
    stream: true,
    stream_options: { include_usage: true },
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}),
  });

  const run = <T>(
    what: string,
    labels: { model: string; endpoint: string },
    signal: AbortSignal | undefined,
    timeoutMs: number,
    fn: (signal: AbortSignal) => Promise<T>,
  ) => runProviderCall({ provider: name, what, ...labels, signal, timeoutMs, mapError: mapUpstreamError }, fn);

  function streamChat(req: ChatRequest): AsyncIterable<StreamPart> {
    const timeoutMs = req.timeoutMs ?? settings.timeoutMs;
    let model = req.model ?? settings.chatModel;
    return runProviderStream(
      { provider: name, model, signal: req.signal, timeoutMs, mapError: mapUpstreamError },
      (signal) => wire.postStream<CompletionChunk>("/chat/completions", chatBody(req), signal),
      // The deltas of one read become one text part (their count says how many chunks it was).
      function* (batch): Iterable<StreamPart> {
        let text = "";
        let chunks = 0;
        for (const chunk of batch) {
          if (chunk.model) model = chunk.model;
          const choice = chunk.choices?.[0];
          const delta = choice?.delta;
          // A refusal inside a 2xx answer: the provider billed the prompt (reach "received").
          if (delta?.refusal || choice?.finish_reason === "content_filter")
            throw upstreamError({ kind: "refused" }, "chat completion", timeoutMs);
          if (delta?.content) {
            text += delta.content;
            chunks++;
          }
          if (chunk.usage) {
            if (chunks > 0) {
              yield { type: "text", text, chunks };
              text = "";
              chunks = 0;
            }
            yield {
              type: "usage",
              model,
              promptTokens: chunk.usage.prompt_tokens ?? 0,
              completionTokens: chunk.usage.completion_tokens ?? 0,
              ...(chunk.usage.prompt_tokens_details?.cached_tokens
                ? { cachedPromptTokens: chunk.usage.prompt_tokens_details.cached_tokens }
                : {}),
            };
          }
        }
        if (chunks > 0) yield { type: "text", text, chunks };
      },
    );
  }

  return {
    name,
    offline: false,
    streamChat,
    chat: (req: ChatRequest): Promise<ChatResult> => assembleChat(streamChat(req), req.model ?? settings.chatModel),

    async embed(texts: string[], signal?: AbortSignal, model = settings.embeddingModel) {
      if (texts.length === 0) return { model, vectors: [] };
      return run("embedding", { model, endpoint: "embeddings" }, signal, settings.timeoutMs, async (s) => {
        const res = await client.embeddings.create(
          // "float" explicitly: the SDK would ask for base64, which several OpenAI-compatible servers lack.
          { model, input: texts, encoding_format: "float" },
          { signal: s },
        );
        const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding as number[]);
        return {
          model: res.model ?? model,
          vectors,
          ...(res.usage?.prompt_tokens !== undefined ? { promptTokens: res.usage.prompt_tokens } : {}),
        };
      });
    },

    async transcribe(req: TranscribeRequest) {
      const timeoutMs = req.timeoutMs ?? settings.timeoutMs;
      const model = req.model ?? settings.transcriptionModel;
      return run("transcription", { model, endpoint: "transcriptions" }, req.signal, timeoutMs, async (signal) => {
        const file = await toFile(req.audio, req.filename, { type: req.mimeType });
        const res = (await client.audio.transcriptions.create(
          {
            file,
            model,
            response_format: "verbose_json",
            ...(req.language ? { language: req.language } : {}),
          },
          { signal, timeout: timeoutMs },
        )) as unknown as { text?: string; language?: string; duration?: number };
        return {
          text: res.text ?? "",
          language: toIso6391(res.language ?? req.language),
          duration: typeof res.duration === "number" && Number.isFinite(res.duration) ? res.duration : 0,
          model,
        };
      });
    },

    async generateImage(req: ImageRequest): Promise<ImageResult> {
      const timeoutMs = req.timeoutMs ?? settings.longTimeoutMs;
      return run("image generation", { model: req.model, endpoint: "images" }, req.signal, timeoutMs, async (signal) => {
        const res = await client.images.generate(
          {
            model: req.model,
            prompt: req.prompt,
            n: 1,
            size: req.size,
            quality: req.quality,
            output_format: req.outputFormat,
            background: req.background,
            ...(req.model.startsWith("dall-e") ? { response_format: "b64_json" as const } : {}),
          },
          { signal, timeout: timeoutMs },
        );
        const item = res.data?.[0];
        let b64 = item?.b64_json ?? undefined;
        if (!b64 && item?.url) {
          const image = await fetch(item.url, { signal });
          if (!image.ok) throw new AppError("upstream_failed", `AI provider's image URL answered ${image.status} (image generation)`);
          b64 = Buffer.from(await image.arrayBuffer()).toString("base64");
        }
        if (!b64) throw new AppError("upstream_failed", "AI provider returned no image (image generation)");
        return {
          b64,
          format: ((res as { output_format?: string }).output_format as ImageResult["format"]) ?? req.outputFormat,
          ...((res as { quality?: string }).quality ? { quality: (res as { quality?: string }).quality } : {}),
          ...((res as { size?: string }).size ? { size: (res as { size?: string }).size } : {}),
          revisedPrompt: item?.revised_prompt ?? req.prompt,
          model: req.model,
        };
      });
    },
  };
}
