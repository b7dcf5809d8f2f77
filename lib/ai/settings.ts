import { fromEnv } from "@/lib/config/env";
import { AppError } from "@/lib/errors";
import { routedChatModels } from "./providers/routes";

/**
 * AI model settings with their defaults (documented in docs/API-NOTES.md, section AI):
 *   AI_CHAT_MODEL           default chat model                     gpt-4o-mini
 *   AI_ALLOWED_MODELS       comma list a client may request        the chat model + every chat model some provider serves
 *   AI_IMAGE_MODEL_MAP      public image model -> provider id      image-model-1=gpt-image-1,image-model-1.5=gpt-image-1.5,image-model-1-mini=gpt-image-1-mini
 *   AI_TRANSCRIPTION_MODEL  transcription model (verbose_json)     whisper-1
 *   AI_EMBEDDING_MODEL      embedding model                        text-embedding-3-small
 *   AI_TIMEOUT_MS           upstream timeout                       60000 (image and content generation: at most 60000)
 */
export const PUBLIC_IMAGE_MODELS = ["image-model-1", "image-model-1.5", "image-model-1-mini"] as const;
export type PublicImageModel = (typeof PUBLIC_IMAGE_MODELS)[number];

export interface AiSettings {
  chatModel: string;
  allowedModels: string[];
  imageModels: Record<PublicImageModel, string>;
  transcriptionModel: string;
  embeddingModel: string;
  timeoutMs: number;
  /** Image and content generation: SPEC's 60-second maximum duration. */
  longTimeoutMs: number;
}

const DEFAULT_IMAGE_MODELS: Record<PublicImageModel, string> = {
  "image-model-1": "gpt-image-1",
  "image-model-1.5": "gpt-image-1.5",
  "image-model-1-mini": "gpt-image-1-mini",
};

function parseList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Accepts `a=b,c=d` or a JSON object; unknown public names are ignored. */
function parseImageMap(value: string | undefined): Record<PublicImageModel, string> {
  const map = { ...DEFAULT_IMAGE_MODELS };
  if (!value) return map;
  let pairs: [string, unknown][] = [];
  if (value.trim().startsWith("{")) {
    try {
      pairs = Object.entries(JSON.parse(value) as Record<string, unknown>);
    } catch {
      throw new AppError("misconfigured", "AI_IMAGE_MODEL_MAP is not valid JSON");
    }
  } else {
    pairs = parseList(value).map((pair) => {
      const i = pair.indexOf("=");
      return [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
    });
  }
  for (const [name, id] of pairs) {
    if ((PUBLIC_IMAGE_MODELS as readonly string[]).includes(name) && typeof id === "string" && id) {
      map[name as PublicImageModel] = id;
    }
  }
  return map;
}

export const aiSettings: () => AiSettings = fromEnv((e) => {
  const chatModel = e.AI_CHAT_MODEL ?? "gpt-4o-mini";
  const allowed = parseList(e.AI_ALLOWED_MODELS);
  const allowedModels = Array.from(new Set([chatModel, ...(allowed.length ? allowed : routedChatModels())]));
  return {
    chatModel,
    allowedModels,
    imageModels: parseImageMap(e.AI_IMAGE_MODEL_MAP),
    transcriptionModel: e.AI_TRANSCRIPTION_MODEL ?? "whisper-1",
    embeddingModel: e.AI_EMBEDDING_MODEL ?? "text-embedding-3-small",
    timeoutMs: e.AI_TIMEOUT_MS,
    longTimeoutMs: Math.min(e.AI_TIMEOUT_MS, 60_000),
  };
});

/** Resolves a client-requested chat model: default when absent, 400 naming the allowed ones otherwise. */
export function resolveChatModel(requested: string | undefined): string {
  const s = aiSettings();
  if (!requested) return s.chatModel;
  if (!s.allowedModels.includes(requested)) {
    throw new AppError(
      "validation_failed",
      `Invalid body: model "${requested}" is not available; use one of ${s.allowedModels.join(", ")}`,
    );
  }
  return requested;
}
