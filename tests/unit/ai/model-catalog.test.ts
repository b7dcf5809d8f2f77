import { calcPrice } from "@pydantic/genai-prices";
import { describe, expect, it } from "vitest";
import { DEFAULT_MODELS, PRICES_AS_OF } from "@/lib/ai/catalog/model-catalog";

/**
 * The built-in prices against a maintained price database (@pydantic/genai-prices, pinned): when the
 * package is bumped and a vendor's price moved, this fails and the catalog is updated in a reviewed
 * diff (PRICES_AS_OF with it), so what customers pay never changes silently.
 */
type Tiered = number | { base: number; tiers: { start: number; price: number }[] } | undefined;
const base = (p: Tiered) => (typeof p === "object" ? p.base : p);
const above = (p: Tiered) => (typeof p === "object" ? p.tiers[0] : undefined);

describe("model catalog", () => {
  it("dates its prices", () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("matches the price database for every chat and embedding model it knows", () => {
    const unknown: string[] = [];
    for (const m of DEFAULT_MODELS.filter((x) => x.kind === "chat" || x.kind === "embedding")) {
      const result = calcPrice({ input_tokens: 1000, output_tokens: 1000 }, m.id, {
        providerId: m.vendor === "gemini" ? "google" : m.vendor,
      });
      if (!result) {
        unknown.push(m.id);
        continue;
      }
      const price = result.model_price as Record<string, Tiered>;
      expect({ id: m.id, input: base(price.input_mtok) }).toEqual({ id: m.id, input: m.perMillionTokens?.input });
      if (m.kind === "chat") {
        expect({ id: m.id, output: base(price.output_mtok) }).toEqual({ id: m.id, output: m.perMillionTokens?.output });
        expect({ id: m.id, cached: base(price.cache_read_mtok) }).toEqual({ id: m.id, cached: m.perMillionTokens?.cachedInput });
      }
      const tier = above(price.input_mtok);
      if (tier)
        expect({ id: m.id, above: tier.start, input: tier.price, output: above(price.output_mtok)?.price }).toEqual({
          id: m.id,
          above: m.longContext?.above,
          input: m.longContext?.input,
          output: m.longContext?.output,
        });
    }
    expect(unknown).toEqual([]);
  });

  it("matches the database's prompt prices of image models and whisper's price per minute", () => {
    for (const m of DEFAULT_MODELS.filter((x) => x.kind === "image")) {
      const result = calcPrice({ input_tokens: 1000 }, m.id, { providerId: "openai" });
      expect({ id: m.id, input: (result?.model_price as Record<string, number>).input_mtok }).toEqual({
        id: m.id,
        input: m.perMillionTokens?.input,
      });
    }
    const whisper = calcPrice({ input_tokens: 0 }, "whisper-1", { providerId: "openai" });
    const perHour = (whisper?.model_price as Record<string, number>).audio_hours;
    expect(perHour / 60).toBeCloseTo(DEFAULT_MODELS.find((m) => m.id === "whisper-1")?.perAudioMinute as number, 10);
  });

  it("prices every kind completely", () => {
    for (const m of DEFAULT_MODELS) {
      if (m.kind === "chat")
        expect(m).toMatchObject({
          contextWindow: expect.any(Number),
          maxOutputTokens: expect.any(Number),
          imageTokens: expect.any(Object),
          tokenizer: expect.any(String),
        });
      if (m.kind === "image")
        for (const q of ["low", "medium", "high"] as const) expect(Object.keys(m.perImage?.[q] ?? {})).toHaveLength(3);
      if (m.kind === "transcription") expect(m.perAudioMinute).toBeGreaterThan(0);
    }
  });
});
