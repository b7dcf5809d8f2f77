import { flags } from "@/lib/config/flags";
import { flatPrice } from "./pricing/operations";
import { IMAGE_QUALITIES, IMAGE_SIZES } from "./catalog/model-catalog";
import { findModel, modelCatalog, type ModelKind } from "./catalog/models";
import { routesFor, routing } from "./providers/routes";
import { costBudgetMicros, flatChatLimits } from "./pricing/price-call";
import { pricingSettings } from "./pricing/pricing-settings";
import { aiSettings, PUBLIC_IMAGE_MODELS } from "./settings";

/**
 * The AI configuration checked at start-up (lib/server/start-server.ts): every model a client may
 * use must be in the model catalog (a model that cannot be priced would be refused on every call), and
 * the overrides must be complete. `limits` is what each flat price accepts per model, logged at start.
 */
export interface AiConfigReport {
  problems: string[];
  limits: FlatLimit[];
}

export interface FlatLimit {
  model: string;
  operation: string;
  credits: number;
  /** USD of upstream usage those credits pay for at the markup. */
  budgetUsd: number;
  maxInputTokens?: number;
  /** What maxInputTokens counts: tokens, or bytes of text for a model whose tokenizer is not published. */
  inputUnit?: "tokens" | "bytes";
  maxOutputTokens?: number;
  /** Image models: the dearest image that fits. */
  largestImage?: string;
  /** Transcription models: the longest recording. */
  maxMinutes?: number;
}

export function checkAiConfig(): AiConfigReport {
  const catalog = modelCatalog();
  const settings = aiSettings();
  const r = routing();
  const problems = [...catalog.problems, ...r.problems];
  if (r.providers.size === 0) {
    problems.push(
      "AI provider: none is configured; set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or AI_PROVIDERS (or AI_OFFLINE=true to serve labelled offline answers in production on purpose)",
    );
  }
  // A model in use must be priced; one whose feature is on must also be served (embeddings are
  // optional: without them RAG retrieves by full text).
  const need = (id: string, kind: ModelKind, setting: string, served: boolean) => {
    const m = findModel(id);
    if (!m) problems.push(`${setting}: "${id}" is not in the model catalog (add it to AI_MODELS with its prices)`);
    else if (m.kind !== kind) problems.push(`${setting}: "${id}" is a ${m.kind} model, not a ${kind} model`);
    else if (served && r.providers.size > 0 && routesFor(id).length === 0) {
      problems.push(
        `${setting}: no configured provider serves "${id}" (its vendor is ${m.vendor}: set its key, route it with AI_ROUTES, or switch its feature off)`,
      );
    }
  };
  const f = flags();
  for (const id of settings.allowedModels)
    need(id, "chat", id === settings.chatModel ? "AI_CHAT_MODEL" : "AI_ALLOWED_MODELS", f.aiChat || f.aiContent || f.aiRag);
  for (const name of PUBLIC_IMAGE_MODELS) need(settings.imageModels[name], "image", `AI_IMAGE_MODEL_MAP (${name})`, f.aiImage);
  need(settings.transcriptionModel, "transcription", "AI_TRANSCRIPTION_MODEL", f.aiAudio);
  need(settings.embeddingModel, "embedding", "AI_EMBEDDING_MODEL", false);
  return { problems, limits: problems.length ? [] : flatLimits() };
}

/** What each flat price accepts, per model in use (empty in metered mode). */
export function flatLimits(): FlatLimit[] {
  const s = pricingSettings();
  if (s.mode !== "flat") return [];
  const settings = aiSettings();
  const limits: FlatLimit[] = [];
  const budgetUsd = (credits: number) => costBudgetMicros(credits, s) / 1e6;
  const chatPrices: [string, number][] = [
    ["chat", flatPrice("chat")],
    ["stream", flatPrice("stream")],
    ["stream_image", flatPrice("stream_image")],
    ["content_generation", flatPrice("content_generation")],
  ];
  for (const id of settings.allowedModels) {
    const model = findModel(id);
    if (!model) continue;
    for (const [operation, credits] of chatPrices) {
      if (operation === "content_generation" && id !== settings.chatModel) continue;
      limits.push({
        model: id,
        operation,
        credits,
        budgetUsd: budgetUsd(credits),
        ...flatChatLimits(model, credits, s),
        inputUnit: model.tokenizer === "bytes" ? "bytes" : "tokens",
      });
    }
  }
  for (const name of PUBLIC_IMAGE_MODELS) {
    const model = findModel(settings.imageModels[name]);
    if (!model?.perImage) continue;
    const budget = costBudgetMicros(flatPrice("image_generation"), s);
    let largest = "none";
    for (const q of IMAGE_QUALITIES) for (const z of IMAGE_SIZES) if (model.perImage[q][z] * 1e6 <= budget) largest = `${q} ${z}`;
    limits.push({
      model: model.id,
      operation: "image_generation",
      credits: flatPrice("image_generation"),
      budgetUsd: budgetUsd(flatPrice("image_generation")),
      largestImage: largest,
    });
  }
  const embedding = findModel(settings.embeddingModel);
  if (embedding?.perMillionTokens?.input) {
    const credits = flatPrice("embeddings");
    const perToken = embedding.perMillionTokens.input;
    limits.push({
      model: embedding.id,
      operation: "embeddings",
      credits,
      budgetUsd: budgetUsd(credits),
      maxInputTokens: Math.floor(costBudgetMicros(credits, s) / perToken),
      inputUnit: embedding.tokenizer === "bytes" ? "bytes" : "tokens",
    });
  }
  const transcription = findModel(settings.transcriptionModel);
  if (transcription?.perAudioMinute) {
    const credits = flatPrice("speech_to_text");
    limits.push({
      model: transcription.id,
      operation: "speech_to_text",
      credits,
      budgetUsd: budgetUsd(credits),
      maxMinutes: Math.floor((budgetUsd(credits) / transcription.perAudioMinute) * 10) / 10,
    });
  }
  return limits;
}
