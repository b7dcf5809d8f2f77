import type { ApiKeyPrincipal } from "@/lib/api-keys/authenticate-api-key";
import type { KeyKind } from "@/lib/api-keys/schemas";
import { KIND_OF_MODEL, offeredModels } from "@/lib/ai/providers/offered-models";
import type { ModelSpec } from "@/lib/ai/catalog/models";
import { modelAllowed, modelRulesOf } from "@/lib/credits";
import { AppError } from "@/lib/errors";

/**
 * The models a key may use: those offered, narrowed to the key's models and to the kinds of call it
 * may make, when it lists them (a chat-only key sees chat models only), and for an organisation's key
 * to its model rules.
 */
export async function modelsForKey(key: ApiKeyPrincipal): Promise<ModelSpec[]> {
  // An organisation's key: its organisation's and its maker's model rules narrow it too (a service key: the organisation's).
  const rules = key.memberId || key.service ? await modelRulesOf(key.userId, key.memberId) : null;
  return offeredModels().filter(
    (m) =>
      (key.models.length === 0 || key.models.includes(m.id)) &&
      (key.kinds.length === 0 || key.kinds.includes(KIND_OF_MODEL[m.kind])) &&
      (!rules || modelAllowed(rules, m.id)),
  );
}

/**
 * The model a /v1 call names, if it is offered for this kind of call and the key may use it: an
 * unknown model is OpenAI's 404 `model_not_found`, one the key is not allowed a 403 `model_not_allowed`.
 */
export function requireKeyModel(key: ApiKeyPrincipal, model: string, kind: KeyKind): ModelSpec {
  const found = offeredModels().find((m) => m.id === model);
  if (!found) {
    throw new AppError(
      "not_found",
      `The model \`${model}\` does not exist or you do not have access to it; GET /v1/models lists what this key may use`,
      {
        param: "model",
        reason: "model_not_found",
      },
    );
  }
  if (KIND_OF_MODEL[found.kind] !== kind) {
    throw new AppError("validation_failed", `Invalid body: model: ${model} serves ${KIND_OF_MODEL[found.kind]} calls, not ${kind}`, {
      param: "model",
      reason: "invalid_value",
    });
  }
  if (key.models.length && !key.models.includes(model)) {
    throw new AppError("forbidden", `This API key may not use the model \`${model}\`; it may use ${key.models.join(", ")}`, {
      param: "model",
      reason: "model_not_allowed",
    });
  }
  return found;
}

/** A key as its charges see it. */
export function chargeKey(key: ApiKeyPrincipal) {
  // A service key always charges through its key (reserve_credits_for_key): a revoked one is refused by the statement.
  return {
    id: key.keyId,
    budgeted: key.budgeted || key.service,
    memberId: key.memberId,
    service: key.service,
    alertThresholds: key.alertThresholds,
  };
}
