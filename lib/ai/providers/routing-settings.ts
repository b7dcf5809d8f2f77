import { z } from "zod";

/**
 * The shapes of AI_PROVIDERS and AI_ROUTES (lib/ai/providers/routes.ts), checked at start-up with every other
 * setting. Edge-safe.
 *
 * AI_PROVIDERS: more providers besides the built-in openai / anthropic / gemini, each with its own base
 * URL and key: OpenAI-compatible servers (OpenRouter, Groq, Together, vLLM, Ollama, Azure's v1 API), or
 * a second Anthropic or Gemini endpoint.
 *   {"openrouter":{"type":"openai-compatible","baseUrl":"https://openrouter.ai/api/v1","apiKey":"sk-or-..."}}
 *
 * AI_ROUTES: per public model, the ordered providers that serve it; a route is a provider name (the
 * same model id there) or { provider, model?, upstreamModel? }: `model` is the catalog entry the
 * call is priced by when that route answers (default: the public model), `upstreamModel` the id sent
 * to the provider (default: `model`).
 *   {"gpt-4o":["openai",{"provider":"openrouter","upstreamModel":"openai/gpt-4o"}]}
 */
/** The kinds of provider AI_PROVIDERS may add (the offline one is never configured: it stands in when none is). */
export const CONFIGURABLE_PROVIDER_TYPES = ["openai-compatible", "openai", "anthropic", "gemini"] as const;

const name = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, "provider names are 1-40 lower-case letters, digits, _ or - (starting with a letter)");

export const aiProvidersSchema = z.record(
  name.refine((n) => n !== "offline", "offline is the built-in offline provider"),
  z.strictObject({
    type: z.enum(CONFIGURABLE_PROVIDER_TYPES),
    baseUrl: z.url({ message: "must be a URL" }).optional(),
    apiKey: z.string().min(1).max(500).optional(),
  }),
);
export type AiProvidersSetting = z.infer<typeof aiProvidersSchema>;

const routeSchema = z.union([
  name,
  z.strictObject({
    provider: name,
    model: z.string().min(1).max(100).optional(),
    upstreamModel: z.string().min(1).max(200).optional(),
  }),
]);

export const aiRoutesSchema = z.record(
  z.string().min(1).max(100),
  z.array(routeSchema).min(1, "needs at least one route").max(10, "at most 10 routes"),
);
export type AiRoutesSetting = z.infer<typeof aiRoutesSchema>;

/**
 * A JSON setting read against its shape: the value, or nothing and the problems (named after the
 * setting and the field, at most 10), which the configuration check reports at start.
 */
export function readSetting<T>(name: string, schema: z.ZodType<T>, value: unknown): { value: T | undefined; problems: string[] } {
  if (value === undefined) return { value: undefined, problems: [] };
  const result = schema.safeParse(value);
  if (result.success) return { value: result.data, problems: [] };
  return {
    value: undefined,
    problems: result.error.issues.slice(0, 10).map((i) => `${name}: ${i.path.join(".") || "(value)"}: ${i.message}`),
  };
}
