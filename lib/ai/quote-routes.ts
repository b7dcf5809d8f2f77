import { pricedModel, type ModelKind, type ModelSpec } from "./models";
import { quoteAcross, quoteChat, quoteImage, quoteTranscription, type Quote } from "./quote-call";
import { routeModels } from "./routes";

/**
 * Quotes of calls on a public model, over every route that may answer it (each priced by its own
 * catalog model): the reservation covers whichever answers. The public model must itself be in the
 * catalog (a 400 otherwise: it could not be priced).
 */
function pricedRoutes(model: string, kind: ModelKind): ModelSpec[] {
  const own = pricedModel(model, kind);
  const models = routeModels(model).filter((m) => m.kind === kind);
  return models.length ? models : [own];
}

export function quoteChatRoutes(model: string, input: Omit<Parameters<typeof quoteChat>[0], "model">): Quote {
  return quoteAcross(pricedRoutes(model, "chat").map((m) => quoteChat({ ...input, model: m })));
}

export function quoteImageRoutes(model: string, input: Omit<Parameters<typeof quoteImage>[0], "model">): Quote {
  return quoteAcross(pricedRoutes(model, "image").map((m) => quoteImage({ ...input, model: m })));
}

export function quoteTranscriptionRoutes(model: string, input: Omit<Parameters<typeof quoteTranscription>[0], "model">): Quote {
  return quoteAcross(pricedRoutes(model, "transcription").map((m) => quoteTranscription({ ...input, model: m })));
}
