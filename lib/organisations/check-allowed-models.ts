import { keyModelsAvailable } from "@/lib/ai/providers/offered-models";
import { AppError } from "@/lib/errors";

/** A model rule's list, checked: models that are offered (GET /v1/models), each once. */
export function checkedAllowedModels(models: string[]): string[] {
  const available = new Set(keyModelsAvailable());
  const unknown = models.filter((m) => !available.has(m));
  if (unknown.length)
    throw new AppError(
      "validation_failed",
      `Invalid body: allowedModels: ${unknown.map((m) => `"${m}"`).join(", ")} ${unknown.length === 1 ? "is" : "are"} not offered; use models of GET /v1/models`,
      { param: "allowedModels" },
    );
  return [...new Set(models)];
}
