import { AppError } from "@/lib/errors";
import { pricedModel, type ModelKind, type ModelSpec } from "../catalog/models";
import { quoteAcross, quoteChat, quoteEmbeddings, quoteImage, quoteTranscription, type Quote } from "./quote-call";
import { flatOf, type PricedBy } from "./operations";
import { billableAttempts, CAPABILITY_OF_KIND, routeModels, routesFor, routesOffering, routing } from "../providers/routes";

/**
 * Quotes of calls on a public model, over every route that may answer it (each priced by its own
 * catalog model) and every attempt that may be billed: the reservation covers whichever answers. The
 * public model must itself be in the catalog (a 400 otherwise: it could not be priced), and some
 * route must offer the kind of call, checked here, before anything is reserved.
 */
const WHAT: Record<ModelKind, string> = {
  chat: "chat completion",
  embedding: "embeddings",
  image: "image generation",
  transcription: "speech to text",
};

function pricedRoutes(model: string, kind: ModelKind): { models: ModelSpec[]; attempts: number } {
  const own = pricedModel(model, kind);
  const capability = CAPABILITY_OF_KIND[kind];
  const all = routesFor(model);
  if (all.length > 0 && routesOffering(model, capability).length === 0) {
    throw new AppError(
      "validation_failed",
      `The AI provider "${all[0].provider}" of "${model}" does not offer ${WHAT[kind]}; route this model to a provider that does (AI_ROUTES)`,
    );
  }
  if (all.length === 0 && routing().providers.size > 0) {
    throw new AppError("validation_failed", `Invalid body: model: no AI provider is configured for "${model}"`, { param: "model" });
  }
  const models = routeModels(model, capability).filter((m) => m.kind === kind);
  return { models: models.length ? models : [own], attempts: billableAttempts(model, capability) };
}

export async function quoteChatRoutes(
  model: string,
  input: Omit<Parameters<typeof quoteChat>[0], "model" | "attempts" | "flat"> & PricedBy,
): Promise<Quote> {
  const { models, attempts } = pricedRoutes(model, "chat");
  return quoteAcross(await Promise.all(models.map((m) => quoteChat({ ...input, flat: flatOf(input), model: m, attempts }))));
}

export function quoteImageRoutes(
  model: string,
  input: Omit<Parameters<typeof quoteImage>[0], "model" | "attempts" | "flat"> & PricedBy,
): Quote {
  const { models, attempts } = pricedRoutes(model, "image");
  return quoteAcross(models.map((m) => quoteImage({ ...input, flat: flatOf(input), model: m, attempts })));
}

export function quoteTranscriptionRoutes(
  model: string,
  input: Omit<Parameters<typeof quoteTranscription>[0], "model" | "attempts" | "flat"> & PricedBy,
): Quote {
  const { models, attempts } = pricedRoutes(model, "transcription");
  return quoteAcross(models.map((m) => quoteTranscription({ ...input, flat: flatOf(input), model: m, attempts })));
}

export async function quoteEmbeddingsRoutes(
  model: string,
  input: Omit<Parameters<typeof quoteEmbeddings>[0], "model" | "attempts" | "flat"> & PricedBy,
): Promise<Quote> {
  const { models, attempts } = pricedRoutes(model, "embedding");
  return quoteAcross(await Promise.all(models.map((m) => quoteEmbeddings({ ...input, flat: flatOf(input), model: m, attempts }))));
}
