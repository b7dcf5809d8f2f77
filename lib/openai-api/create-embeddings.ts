import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import { isAbortError } from "@/lib/ai/abort";
import { openCharge, refundCharge, settleCharge } from "@/lib/ai/ai-charge";
import { offlineEmbedding } from "@/lib/ai/offline-embeddings";
import { aiProvider, OFFLINE_MODEL_PREFIX, type EmbeddingResult } from "@/lib/ai/provider";
import { quoteEmbeddings } from "@/lib/ai/quote-call";
import { CREDIT_COSTS } from "@/lib/config/pricing";
import { AppError, isAppError } from "@/lib/errors";
import { chargeKey, requireKeyModel } from "./key-models";
import type { EmbeddingsBody } from "./schemas";

/** A vector shortened to `dimensions` and scaled back to unit length (what OpenAI's `dimensions` does for its v3 models). */
function shorten(vector: number[], dimensions: number | undefined): number[] {
  if (!dimensions || dimensions >= vector.length) return vector;
  const cut = vector.slice(0, dimensions);
  const norm = Math.hypot(...cut) || 1;
  return cut.map((x) => x / norm);
}

/** OpenAI's base64 encoding: the vector's float32 values, little-endian. */
function toBase64(vector: number[]): string {
  const floats = new Float32Array(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString("base64");
}

/**
 * POST /v1/embeddings: every input within the model's context and (flat, 1 credit a call) the whole
 * call within what that credit pays for; reserved before the provider is called, refunded when it
 * fails, settled at the inputs' tokens. Without a provider (offline) the vectors are deterministic
 * hashes of the words, labelled by an offline- model name.
 */
export async function createEmbeddings(input: { key: ApiKeyPrincipal; body: EmbeddingsBody; signal?: AbortSignal }) {
  const { key, body } = input;
  const model = requireKeyModel(key, body.model, "embeddings");
  if (body.dimensions && model.dimensions && body.dimensions > model.dimensions) {
    throw new AppError("validation_failed", `Invalid body: dimensions: at most ${model.dimensions} for ${model.id}`, { param: "dimensions" });
  }
  const texts = typeof body.input === "string" ? [body.input] : body.input;
  const provider = aiProvider();
  const quote = quoteEmbeddings({ model, texts, flat: CREDIT_COSTS.embeddings });
  const charge = await openCharge({ userId: key.userId, apiKey: chargeKey(key), operation: "embeddings", quote, metadata: { provider: provider.name, api: "v1", inputs: texts.length } });
  let vectors: number[][];
  let answeredModel: string;
  let result: EmbeddingResult | null;
  try {
    result = await provider.embed(texts, input.signal, model.id);
    if (result) {
      vectors = result.vectors;
      answeredModel = result.model;
    } else {
      vectors = texts.map((t) => offlineEmbedding(t, model.dimensions ?? 1536));
      answeredModel = `${OFFLINE_MODEL_PREFIX}${model.id}`;
    }
  } catch (error) {
    await refundCharge(charge, isAppError(error) ? error.code : "aborted");
    if (isAbortError(error)) throw new AppError("bad_request", "The request was aborted by the client");
    throw error;
  }
  // The provider's count when it gives one (OpenAI's embeddings use their own tokenizer); ours otherwise.
  const tokens = result?.promptTokens ?? quote.worst.promptTokens ?? 0;
  const settled = await settleCharge(charge, { promptTokens: tokens }, { model: answeredModel, answeredBy: result?.route, background: true });
  const base64 = body.encoding_format === "base64";
  return {
    credits: settled,
    answer: {
      object: "list" as const,
      data: vectors.map((v, index) => {
        const vector = shorten(v, body.dimensions ?? undefined);
        return { object: "embedding" as const, index, embedding: base64 ? toBase64(vector) : vector };
      }),
      model: answeredModel,
      usage: { prompt_tokens: tokens, total_tokens: tokens, credits_charged: settled.credits, credits_remaining: settled.remaining },
    },
  };
}
