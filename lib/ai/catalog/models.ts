import { fromEnv } from "@/lib/config/env";
import { modelOverridesSchema, type ModelOverrides } from "./model-overrides";
import { AppError } from "@/lib/errors";
import { DEFAULT_MODELS, IMAGE_QUALITIES, IMAGE_SIZES, type ModelKind, type ModelSpec } from "./model-catalog";

export { PRICES_AS_OF, type ModelKind, type ModelSpec } from "./model-catalog";

/**
 * The model catalog in force: the built-in one (lib/ai/catalog/model-catalog.ts) with AI_MODELS applied
 * (fields replaced per model, new models added). Built once per configuration; edge-safe.
 */
export interface ModelCatalog {
  models: Map<string, ModelSpec>;
  /** What is wrong with the overrides (a new model missing its kind, vendor or prices). */
  problems: string[];
}

function mergeCatalog(overrides: ModelOverrides | undefined): ModelCatalog {
  const models = new Map(DEFAULT_MODELS.map((m) => [m.id, m]));
  const problems: string[] = [];
  for (const [id, patch] of Object.entries(overrides ?? {})) {
    const base = models.get(id);
    const { imageInputTokens, ...fields } = patch;
    // A new model whose tokenizer is not named is bounded by bytes (no published tokenizer is assumed).
    const merged = { tokenizer: "bytes", ...(base ?? {}), ...fields, id } as ModelSpec;
    if (imageInputTokens !== undefined) merged.imageTokens = { rule: "fixed", tokens: imageInputTokens };
    const missing = incomplete(merged);
    if (missing.length) problems.push(`AI_MODELS: ${id}: ${base ? "" : "a new model needs "}${missing.join(", ")}`);
    else models.set(id, merged);
  }
  return { models, problems };
}

/** The fields a model of its kind needs to be priced. */
function incomplete(m: Partial<ModelSpec>): string[] {
  if (!m.kind) return ["kind (chat, embedding, image or transcription)", "vendor", "prices"];
  const missing: string[] = [];
  if (!m.vendor) missing.push("vendor");
  switch (m.kind) {
    case "chat":
      if (m.perMillionTokens?.output === undefined) missing.push("perMillionTokens with input and output");
      if (!m.contextWindow) missing.push("contextWindow");
      if (!m.maxOutputTokens) missing.push("maxOutputTokens");
      break;
    case "embedding":
      if (!m.perMillionTokens) missing.push("perMillionTokens.input");
      if (!m.contextWindow) missing.push("contextWindow");
      break;
    case "image":
      if (!m.perImage || IMAGE_QUALITIES.some((q) => IMAGE_SIZES.some((s) => typeof m.perImage?.[q]?.[s] !== "number")))
        missing.push("perImage (low, medium, high by size)");
      if (!m.perMillionTokens) missing.push("perMillionTokens.input (the prompt)");
      break;
    case "transcription":
      if (m.perAudioMinute === undefined) missing.push("perAudioMinute");
      break;
  }
  return missing;
}

export const modelCatalog: () => ModelCatalog = fromEnv((e) => {
  // AI_MODELS is read against its shape here (the catalog's own setting); a wrong one leaves the built-in catalog and is reported at start.
  const overrides = modelOverridesSchema.safeParse(e.AI_MODELS ?? {});
  if (overrides.success) return mergeCatalog(overrides.data);
  const catalog = mergeCatalog(undefined);
  catalog.problems.push(...overrides.error.issues.slice(0, 10).map((i) => `AI_MODELS: ${i.path.join(".") || "(value)"}: ${i.message}`));
  return catalog;
});

/** The catalog entry of a model, or undefined. */
export function findModel(id: string): ModelSpec | undefined {
  return modelCatalog().models.get(id);
}

/**
 * The catalog entry a call will be priced by. A model the catalog does not know is refused (400):
 * it could only be charged at a guess, and never at zero.
 */
export function pricedModel(id: string, kind: ModelKind, field = "model"): ModelSpec {
  const spec = findModel(id);
  if (!spec || spec.kind !== kind) {
    throw new AppError(
      "validation_failed",
      `Invalid body: ${field}: "${id}" is not a ${kind} model of the model catalog, so it cannot be priced; add it to AI_MODELS or use a listed one`,
    );
  }
  return spec;
}

/** Every model of a kind, in catalog order. */
export function modelsOfKind(kind: ModelKind): ModelSpec[] {
  return [...modelCatalog().models.values()].filter((m) => m.kind === kind);
}
