import { afterEach, describe, expect, it } from "vitest";
import { findModel } from "@/lib/ai/models";
import { costBudgetMicros, costMicros, creditsForCost, flatChatLimits } from "@/lib/ai/price-call";
import { lowestCreditPrice, pricingSettings } from "@/lib/ai/pricing-settings";
import { countPromptTokens, quoteChat, quoteImage, quoteTranscription } from "@/lib/ai/quote-call";
import { checkAiConfig } from "@/lib/ai/check-ai-config";
import { pricingCatalog } from "@/lib/config/pricing";
import { setEnv } from "@/tests/helpers/env";

let undo: (() => void) | null = null;
afterEach(() => {
  undo?.();
  undo = null;
});
const model = (id: string) => findModel(id) as NonNullable<ReturnType<typeof findModel>>;
const user = (content: string) => [{ role: "user" as const, content }];

describe("what a call costs", () => {
  it("prices tokens per million, cached prompt tokens at their price, and rounds up to a whole micro", () => {
    // gpt-4o-mini: $0.15 / $0.075 cached / $0.60 per million tokens.
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1000, completionTokens: 500 })).toBe(450);
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1000, cachedPromptTokens: 400, completionTokens: 500 })).toBe(420);
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1 })).toBe(1);
    // Tiered: above 200k prompt tokens every token of gemini-2.5-pro costs the long-context price.
    expect(costMicros(model("gemini-2.5-pro"), { promptTokens: 200_000, completionTokens: 1000 })).toBe(250_000 + 10_000);
    expect(costMicros(model("gemini-2.5-pro"), { promptTokens: 200_001, completionTokens: 1000 })).toBe(500_003 + 15_000);
    expect(costMicros(model("gpt-image-1"), { promptTokens: 100, images: { quality: "high", size: "1536x1024", count: 1 } })).toBe(250_500);
    expect(costMicros(model("whisper-1"), { audioSeconds: 90 })).toBe(9000);
  });

  it("turns cost into credits: cost x markup / credit value, rounded up, at least the minimum", () => {
    const s = { mode: "metered" as const, creditValueUsd: 0.01, creditValueSource: "t", markup: 1.5, minCreditsPerCall: 1 };
    expect(creditsForCost(0, s)).toBe(1);
    expect(creditsForCost(10_000, s)).toBe(2); // $0.01 x 1.5 = 1.5 credits -> 2
    expect(creditsForCost(20_000, s)).toBe(3);
    expect(creditsForCost(20_000, { ...s, minCreditsPerCall: 5 })).toBe(5);
    expect(costBudgetMicros(15, s)).toBe(100_000); // 15 credits = $0.15 sold, $0.10 of usage at markup 1.5
  });

  it("values a credit by default at the lowest price the catalog sells one at", () => {
    const lowest = lowestCreditPrice(pricingCatalog());
    expect(lowest).toEqual({ usd: 99.99 / 25_000, source: "Enterprise bonus package of 25000 credits" });
    expect(pricingSettings()).toMatchObject({ mode: "flat", creditValueUsd: 99.99 / 25_000, markup: 1, minCreditsPerCall: 1 });
    undo = setEnv({ CREDIT_VALUE_USD: "0.01", AI_MARKUP: "2", AI_PRICING_MODE: "metered", AI_MIN_CREDITS_PER_CALL: "3" });
    expect(pricingSettings()).toMatchObject({ mode: "metered", creditValueUsd: 0.01, creditValueSource: "CREDIT_VALUE_USD", markup: 2, minCreditsPerCall: 3 });
  });
});

describe("the worst case before a call", () => {
  it("counts prompt tokens with the tokenizer plus OpenAI's message framing, images at the model's worst case", () => {
    expect(countPromptTokens(model("gpt-4o"), user("Hello there"))).toEqual({ tokens: 3 + 4 + 2, images: 0 });
    const withImage = [{ role: "user" as const, content: [{ type: "text" as const, text: "What is it?" }, { type: "image" as const, image: "data:image/png;base64,AAAA" }] }];
    expect(countPromptTokens(model("gpt-4o"), withImage).tokens).toBe(3 + 4 + 4 + 1445);
    // Other vendors: the o200k count times the model's margin.
    expect(countPromptTokens(model("claude-sonnet-4-5"), user("Hello there")).tokens).toBe(Math.ceil(9 * 1.35));
  });

  it("metered: reserves the worst case (prompt + output cap) and caps the output at the model's maximum", () => {
    undo = setEnv({ AI_PRICING_MODE: "metered", CREDIT_VALUE_USD: "0.001" });
    const q = quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), flat: 15 });
    expect(q).toMatchObject({ flatCredits: null, maxOutputTokens: 32_768, worst: { promptTokens: 8, completionTokens: 32_768 } });
    expect(q.worstMicros).toBe(8 * 2 + 32_768 * 8);
    expect(q.reserve).toBe(Math.ceil(q.worstMicros / 1000));
    expect(quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), maxTokens: 100, flat: 15 }).reserve).toBe(1);
    expect(() => quoteChat({ model: model("gpt-4o-mini"), messages: user("Hi"), maxTokens: 20_000, flat: 15 })).toThrow(/maxTokens: at most 16,384 for gpt-4o-mini/);
  });

  it("flat: a 4 MiB chat on gpt-4.1 with maxTokens 128,000 is refused, naming the limit; without maxTokens the output is capped to what the price pays", () => {
    const huge = user("word ".repeat(838_861)); // 4 MiB
    expect(() => quoteChat({ model: model("gpt-4.1"), messages: huge, maxTokens: 128_000, flat: 15 })).toThrow(/maxTokens: at most 32,768 for gpt-4.1/);
    expect(() => quoteChat({ model: model("gpt-4.1"), messages: huge, maxTokens: 1000, flat: 15 })).toThrow(
      /Invalid body: messages: the input is about 838,8\d\d tokens; at the flat price of 15 credits \(\$0\.0600 of gpt-4.1 usage\) it may be at most about 29,99\d tokens/,
    );
    const small = quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), flat: 15 });
    // 15 credits x $0.0039996 = $0.059994 of usage; 8 prompt tokens at $2/M, then $8/M per output token.
    expect(small).toMatchObject({ flatCredits: 15, reserve: 15, maxOutputTokens: Math.floor((59_994 - 16) / 8) });
    expect(() => quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), maxTokens: 8000, flat: 15 })).toThrow(/maxTokens: at most 7,497 for gpt-4.1 with this input at the flat price of 15 credits/);
    expect(quoteChat({ model: model("gpt-4o-mini"), messages: user("Hi"), flat: 15 }).maxOutputTokens).toBe(16_384);
  });

  it("flat: images priced at the dearest for auto, refused when the flat price does not pay for them", () => {
    undo = setEnv({ CREDIT_VALUE_USD: "0.001" }); // 80 credits = $0.08
    expect(quoteImage({ model: model("gpt-image-1"), prompt: "a cat", size: "1024x1024", quality: "medium", flat: 80 }).reserve).toBe(80);
    expect(() => quoteImage({ model: model("gpt-image-1"), prompt: "a cat", size: "1024x1024", quality: "auto", flat: 80 })).toThrow(
      /Invalid body: quality: a high-quality 1024x1024 image from gpt-image-1 costs up to \$0.1670/,
    );
    expect(() => quoteTranscription({ model: model("whisper-1"), seconds: 30 * 60, flat: 20 })).toThrow(
      /audio: the recording is 30.0 minutes long; at the flat price of 20 credits it may be at most 3.3 minutes/,
    );
  });

  it("states each flat price's limits per model", () => {
    expect(flatChatLimits(model("gpt-4.1"), 15, pricingSettings())).toEqual({ maxInputTokens: 29_993, maxOutputTokens: 7_494 });
    const report = checkAiConfig();
    expect(report.problems).toEqual([]);
    expect(report.limits.find((l) => l.model === "gpt-4o-mini" && l.operation === "chat")).toMatchObject({ credits: 15, maxOutputTokens: 16_384 });
    expect(report.limits.find((l) => l.operation === "speech_to_text")).toMatchObject({ model: "whisper-1", maxMinutes: 13.3 });
  });

  it("refuses at start-up a model in use that the catalog cannot price, or an incomplete addition", () => {
    undo = setEnv({ AI_ALLOWED_MODELS: "gpt-4o,mystery-model", AI_MODELS: JSON.stringify({ "half-model": { kind: "chat", vendor: "openai" } }) });
    expect(checkAiConfig().problems).toEqual([
      "AI_MODELS: half-model: a new model needs perMillionTokens with input and output, contextWindow, maxOutputTokens",
      'AI_ALLOWED_MODELS: "mystery-model" is not in the model catalog (add it to AI_MODELS with its prices)',
    ]);
  });

  it("applies an operator's price override", () => {
    undo = setEnv({ AI_MODELS: JSON.stringify({ "gpt-4o-mini": { perMillionTokens: { input: 1, output: 2 } } }) });
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1000, completionTokens: 1000 })).toBe(3000);
    expect(model("gpt-4o-mini").maxOutputTokens).toBe(16_384);
  });
});
