import { modelCatalog, type ModelKind, type ModelSpec } from "../catalog/models";
import { routing } from "./routes";
import { aiSettings } from "../settings";

/**
 * The models the OpenAI-compatible API offers (GET /v1/models) and an API key may be limited to: the
 * chat models a client may use (AI_ALLOWED_MODELS), and every embedding, image and transcription model
 * some provider serves. In catalog order.
 */
export function offeredModels(): ModelSpec[] {
  const allowedChat = new Set(aiSettings().allowedModels);
  const routes = routing().routes;
  return [...modelCatalog().models.values()].filter((m) => (m.kind === "chat" ? allowedChat.has(m.id) : routes.has(m.id)));
}

export function keyModelsAvailable(): string[] {
  return offeredModels().map((m) => m.id);
}

/** The kind of call each model serves, as API keys name it. */
export const KIND_OF_MODEL: Record<ModelKind, "chat" | "embeddings" | "images" | "transcription"> = {
  chat: "chat",
  embedding: "embeddings",
  image: "images",
  transcription: "transcription",
};
