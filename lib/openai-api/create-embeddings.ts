import type { RequestTags } from "./request-tags";
import type { ChargeSlot } from "@/lib/db/ai-slots";
import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import { openCharge } from "@/lib/ai/pricing/ai-charge";
import { oneShotFailure, runChargedCall } from "@/lib/ai/charged-call";
import { billOneShot, quotedUsage } from "@/lib/ai/pricing/meter";
import { findModel } from "@/lib/ai/catalog/models";
import { aiProvider, type EmbeddingResult } from "@/lib/ai/providers/provider";
import { quoteEmbeddingsRoutes } from "@/lib/ai/pricing/quote-routes";
import { AppError } from "@/lib/errors";
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
 * POST /v1/embeddings: every input within the model's context (counted with the model's own
 * tokenizer: text-embedding-3 bills by cl100k) and (flat, 1 credit a call) the whole call within
 * what that credit pays for, over every route that may answer; reserved before the provider is
 * called and settled through the charged call engine (lib/ai/charged-call.ts) at the tokens the
 * provider reports (ours when it reports none). Without a provider the offline one answers
 * deterministic vectors, labelled by an offline- model name.
 */
export async function createEmbeddings(input: {
  key: ApiKeyPrincipal;
  slot?: ChargeSlot | null;
  body: EmbeddingsBody;
  signal?: AbortSignal;
  tags?: RequestTags;
}) {
  const { key, body } = input;
  const model = requireKeyModel(key, body.model, "embeddings");
  if (body.dimensions && model.dimensions && body.dimensions > model.dimensions) {
    throw new AppError("validation_failed", `Invalid body: dimensions: at most ${model.dimensions} for ${model.id}`, {
      param: "dimensions",
    });
  }
  const texts = typeof body.input === "string" ? [body.input] : body.input;
  const provider = aiProvider();
  const quote = await quoteEmbeddingsRoutes(model.id, { texts, operation: "embeddings" });
  const charge = await openCharge({
    userId: key.userId,
    apiKey: chargeKey(key),
    slot: input.slot,
    operation: "embeddings",
    quote,
    metadata: { provider: provider.name, api: "v1", inputs: texts.length, ...input.tags },
  });
  const tokensOf = (r: EmbeddingResult) =>
    r.promptTokens ?? quotedUsage(quote, findModel(r.route?.model ?? model.id) ?? quote.model).promptTokens ?? 0;
  const { value: result, settled } = await runChargedCall({
    charge,
    signal: input.signal,
    call: (signal) => provider.embed(texts, signal, model.id),
    answered: (r) => ({
      attempts: billOneShot(
        quote,
        { route: r.route ?? null, usage: { promptTokens: tokensOf(r) }, reported: r.promptTokens !== undefined },
        undefined,
        r.spent,
      ),
      complete: true,
    }),
    failed: (error) => oneShotFailure(quote, error),
    settle: (r) => ({ model: r.model }),
  });
  const tokens = tokensOf(result);
  const base64 = body.encoding_format === "base64";
  return {
    credits: settled,
    answer: {
      object: "list" as const,
      data: result.vectors.map((v, index) => {
        const vector = shorten(v, body.dimensions ?? undefined);
        return { object: "embedding" as const, index, embedding: base64 ? toBase64(vector) : vector };
      }),
      model: model.id,
      usage: { prompt_tokens: tokens, total_tokens: tokens, credits_charged: settled.credits, credits_remaining: settled.remaining },
    },
  };
}
