import { ApiError, GoogleGenAI, type Content, type GenerateContentResponse, type Part } from "@google/genai";
import { AppError } from "@/lib/errors";
import { AiAbortError } from "./abort";
import { assembleChat } from "./assemble-chat";
import { runProviderCall, runProviderStream, unsupported, type Deadline } from "./provider-call";
import type { AiProvider, ChatMessage, ChatRequest, ChatResult, StreamPart, TokenUsage } from "./provider-types";
import { upstreamError } from "./upstream-error";

/**
 * Google's Gemini API through its SDK (@google/genai, the only file importing it): chat, streaming,
 * images in messages and embeddings. No image generation or transcription here: those answer a 400
 * naming the provider. Usage from usageMetadata: prompt tokens (cached ones included, and said), and
 * output = candidates + thinking tokens (Gemini bills thinking as output).
 */
export interface GeminiProviderOptions {
  name: string;
  apiKey: string;
  baseURL?: string;
  timeoutMs: number;
}

function parts(m: ChatMessage): Part[] {
  if (typeof m.content === "string")
    return [
      { text: m.role === "tool" || m.role === "function" ? `[${m.role}${m.name ? ` ${m.name}` : ""} output]\n${m.content}` : m.content },
    ];
  return m.content.map((p) => {
    if (p.type === "text") return { text: p.text };
    const match = /^data:(image\/[a-z]+);base64,(.*)$/s.exec(p.image);
    return { inlineData: { mimeType: match?.[1] ?? "image/png", data: match?.[2] ?? "" } };
  });
}

/** System messages become the system instruction; assistant turns are Gemini's "model" role. */
function toGemini(messages: ChatMessage[]): { system?: string; contents: Content[] } {
  const system: string[] = [];
  const contents: Content[] = [];
  for (const m of messages) {
    if (m.role === "system") {
      system.push(typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("\n"));
      continue;
    }
    const role = m.role === "assistant" ? "model" : "user";
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts = [...(last.parts ?? []), ...parts(m)];
    else contents.push({ role, parts: parts(m) });
  }
  return { system: system.length ? system.join("\n\n") : undefined, contents };
}

function usageOf(r: GenerateContentResponse | undefined): TokenUsage {
  const u = r?.usageMetadata;
  const cached = u?.cachedContentTokenCount ?? 0;
  return {
    promptTokens: u?.promptTokenCount ?? 0,
    completionTokens: (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0),
    ...(cached ? { cachedPromptTokens: cached } : {}),
  };
}

/** A blocked prompt or a candidate stopped for safety is a content-policy refusal. */
function refused(r: GenerateContentResponse): boolean {
  const finish = r.candidates?.[0]?.finishReason;
  return Boolean(r.promptFeedback?.blockReason) || finish === "SAFETY" || finish === "PROHIBITED_CONTENT" || finish === "BLOCKLIST";
}

/** Google's error body: its code, status and RetryInfo (`"retryDelay": "23s"`). */
function googleError(error: ApiError): { status: number; code: string | null; message: string; retryAfterMs: number | null } {
  let body: { error?: { status?: string; message?: string; details?: { "@type"?: string; retryDelay?: string }[] } } = {};
  try {
    body = JSON.parse(error.message) as typeof body;
  } catch {
    // not JSON: the status says enough
  }
  const delay = body.error?.details?.find((d) => d["@type"]?.endsWith("RetryInfo"))?.retryDelay;
  const seconds = delay ? Number.parseFloat(delay) : NaN;
  return {
    status: error.status,
    code: body.error?.status ?? null,
    message: body.error?.message ?? error.message,
    retryAfterMs: Number.isFinite(seconds) ? Math.ceil(seconds * 1000) : null,
  };
}

/** `opened`: the provider had accepted the request (its stream began): whatever fails now was received. */
function mapError(error: unknown, what: string, d: Deadline, timeoutMs: number, opened = false): Error {
  if (error instanceof AppError || error instanceof AiAbortError) return error;
  if (d.timedOut()) return upstreamError({ kind: "timeout" }, what, timeoutMs, error);
  if (d.callerAborted()) return new AiAbortError();
  if ((error as Error)?.name === "AbortError") return upstreamError({ kind: "timeout" }, what, timeoutMs, error);
  if (error instanceof ApiError) {
    const g = googleError(error);
    const failure = {
      kind: "http" as const,
      ...g,
      outOfQuota: /quota/i.test(g.message) && /billing|exceeded your current quota/i.test(g.message) && !g.retryAfterMs,
    };
    return upstreamError(failure, what, timeoutMs, error, opened ? "received" : "refused");
  }
  if (opened) return upstreamError({ kind: "invalid" }, what, timeoutMs, error, "received");
  const text = String((error as Error)?.message ?? "");
  return upstreamError(
    { kind: /fetch failed|ECONNREFUSED|ECONNRESET|socket|network/i.test(text) ? "network" : "invalid" },
    what,
    timeoutMs,
    error,
  );
}

export function createGeminiProvider(options: GeminiProviderOptions): AiProvider {
  const client = new GoogleGenAI({ apiKey: options.apiKey, ...(options.baseURL ? { httpOptions: { baseUrl: options.baseURL } } : {}) });
  const request = (req: ChatRequest, signal: AbortSignal) => {
    const { system, contents } = toGemini(req.messages);
    return {
      model: req.model as string,
      contents,
      config: {
        abortSignal: signal,
        ...(system ? { systemInstruction: system } : {}),
        ...(req.maxTokens !== undefined ? { maxOutputTokens: req.maxTokens } : {}),
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      },
    };
  };

  /**
   * Streams the answer (also for a JSON chat: a call cut short is then billed for what was
   * produced). Every chunk carries the usage so far, thinking included: each is passed on, so a cut
   * answer is billed at least the thinking the provider already reported.
   */
  function streamChat(req: ChatRequest): AsyncIterable<StreamPart> {
    const timeoutMs = req.timeoutMs ?? options.timeoutMs;
    const model = req.model as string;
    return runProviderStream(
      { provider: options.name, model, signal: req.signal, timeoutMs, mapError },
      (signal) => client.models.generateContentStream(request(req, signal)),
      function* (chunk): Iterable<StreamPart> {
        if (refused(chunk)) throw upstreamError({ kind: "refused" }, "chat completion", timeoutMs);
        if (chunk.usageMetadata) yield { type: "usage", model: chunk.modelVersion ?? model, ...usageOf(chunk) };
        const text = chunk.text;
        if (text) yield { type: "text", text };
      },
    );
  }

  return {
    name: options.name,
    offline: false,
    streamChat,
    chat: (req: ChatRequest): Promise<ChatResult> => assembleChat(streamChat(req), req.model as string),

    async embed(texts: string[], signal?: AbortSignal, model?: string) {
      const id = model ?? "gemini-embedding-001";
      if (texts.length === 0) return { model: id, vectors: [] };
      const call = {
        provider: options.name,
        what: "embedding",
        model: id,
        endpoint: "embeddings",
        signal,
        timeoutMs: options.timeoutMs,
        mapError,
      };
      return runProviderCall(call, async (abortSignal) => {
        const r = await client.models.embedContent({ model: id, contents: texts, config: { abortSignal } });
        return { model: id, vectors: (r.embeddings ?? []).map((e) => e.values ?? []) };
      });
    },
    transcribe: () => Promise.reject(unsupported(options.name, "speech to text")),
    generateImage: () => Promise.reject(unsupported(options.name, "image generation")),
  };
}
