import { afterEach, describe, expect, it } from "vitest";
import { checkAiConfig } from "@/lib/ai/check-ai-config";
import { imageSizeOf, imageTokens } from "@/lib/ai/pricing/image-tokens";
import { findModel } from "@/lib/ai/catalog/models";
import { costBudgetMicros, costMicros, creditsForCost, flatChatLimits } from "@/lib/ai/pricing/price-call";
import { lowestCreditPrice, pricingSettings } from "@/lib/ai/pricing/pricing-settings";
import { countPromptTokens } from "@/lib/ai/pricing/count-prompt";
import { quoteChat, quoteEmbeddings, quoteImage, quoteTranscription } from "@/lib/ai/pricing/quote-call";
import { countTokens } from "@/lib/ai/pricing/tokens";
import { pricingCatalog } from "@/lib/config/pricing";
import { setEnv } from "@/tests/helpers/env";
import { pngOf } from "@/tests/helpers/images";

let undo: (() => void) | null = null;
afterEach(() => {
  undo?.();
  undo = null;
});
const model = (id: string) => findModel(id) as NonNullable<ReturnType<typeof findModel>>;
const user = (content: string) => [{ role: "user" as const, content }];

describe("what a call costs", () => {
  it("prices tokens per million, cached prompt tokens at their price, exactly (rounded once, into credits)", () => {
    // gpt-4o-mini: $0.15 / $0.075 cached / $0.60 per million tokens.
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1000, completionTokens: 500 })).toBeCloseTo(450, 9);
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1000, cachedPromptTokens: 400, completionTokens: 500 })).toBeCloseTo(420, 9);
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1 })).toBeCloseTo(0.15, 9);
    // Tiered: above 200k prompt tokens every token of gemini-2.5-pro costs the long-context price.
    expect(costMicros(model("gemini-2.5-pro"), { promptTokens: 200_000, completionTokens: 1000 })).toBeCloseTo(250_000 + 10_000, 6);
    expect(costMicros(model("gemini-2.5-pro"), { promptTokens: 200_001, completionTokens: 1000 })).toBeCloseTo(500_002.5 + 15_000, 6);
    expect(costMicros(model("gpt-image-1"), { promptTokens: 100, images: { quality: "high", size: "1536x1024", count: 1 } })).toBeCloseTo(
      250_500,
      6,
    );
    expect(costMicros(model("whisper-1"), { audioSeconds: 90 })).toBeCloseTo(9000, 6);
  });

  it("turns cost into credits: cost x markup / credit value, rounded up once, at least the minimum", () => {
    const s = {
      mode: "metered" as const,
      creditValueUsd: 0.01,
      creditValueSource: "t",
      markup: 1.5,
      minCreditsPerCall: 1,
      flatMargin: 0.2,
    };
    expect(creditsForCost(0, s)).toBe(1);
    expect(creditsForCost(10_000, s)).toBe(2); // $0.01 x 1.5 = 1.5 credits -> 2
    expect(creditsForCost(20_000, s)).toBe(3);
    expect(creditsForCost(20_000, { ...s, minCreditsPerCall: 5 })).toBe(5);
    // Not rounded to a whole micro before the markup: 6,666.6 micros x 1.5 = exactly one credit of $0.01.
    expect(creditsForCost(costMicros(model("gpt-4o-mini"), { completionTokens: 11_111 }), { ...s, markup: 1.5 })).toBe(1);
    // 15 credits = $0.15 sold, $0.10 of usage at markup 1.5, 80% of it spendable by one flat call.
    expect(costBudgetMicros(15, s)).toBe(80_000);
    expect(costBudgetMicros(15, { ...s, flatMargin: 0 })).toBe(100_000);
  });

  it("values a credit by default at the lowest price the catalog sells one at, with a 20% flat margin", () => {
    const lowest = lowestCreditPrice(pricingCatalog());
    expect(lowest).toEqual({ usd: 99.99 / 25_000, source: "Enterprise bonus package of 25000 credits" });
    expect(pricingSettings()).toMatchObject({
      mode: "flat",
      creditValueUsd: 99.99 / 25_000,
      markup: 1,
      minCreditsPerCall: 1,
      flatMargin: 0.2,
    });
    undo = setEnv({
      CREDIT_VALUE_USD: "0.01",
      AI_MARKUP: "2",
      AI_PRICING_MODE: "metered",
      AI_MIN_CREDITS_PER_CALL: "3",
      AI_FLAT_MARGIN: "0.3",
    });
    expect(pricingSettings()).toMatchObject({
      mode: "metered",
      creditValueUsd: 0.01,
      creditValueSource: "CREDIT_VALUE_USD",
      markup: 2,
      minCreditsPerCall: 3,
      flatMargin: 0.3,
    });
  });
});

describe("the worst case before a call", () => {
  it("counts prompt tokens with the model's own tokenizer plus OpenAI's message framing; images by their real size", async () => {
    expect(await countPromptTokens(model("gpt-4o"), user("Hello there"))).toEqual({ bound: 3 + 4 + 2, estimate: 3 + 4 + 2, images: 0 });
    const withImage = (image: string) => [
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: "What is it?" },
          { type: "image" as const, image },
        ],
      },
    ];
    // gpt-4o: 85 + 170 per 512-px tile; a 1024x1024 image is scaled to 768x768: 4 tiles.
    expect((await countPromptTokens(model("gpt-4o"), withImage(pngOf(1024, 1024)))).bound).toBe(3 + 4 + 4 + 85 + 4 * 170);
    // Gemini: 258 per 768-px tile; 3072 x 3072 is 16 tiles (never the 6 a fixed guess assumed).
    expect((await countPromptTokens(model("gemini-2.5-flash"), withImage(pngOf(3072, 3072)))).bound).toBe(3 + 4 + 11 + 16 * 258);
    expect((await countPromptTokens(model("gemini-2.5-flash"), withImage(pngOf(300, 300)))).bound).toBe(3 + 4 + 11 + 258);
    await expect(countPromptTokens(model("gpt-4o"), withImage("data:image/png;base64,AAAA"))).rejects.toThrow(
      /width and height cannot be read/,
    );
    // Vendors whose tokenizer is not published: the UTF-8 length bounds it, whatever the script.
    expect((await countPromptTokens(model("claude-sonnet-4-5"), user("Hello there"))).bound).toBe(3 + 4 + 11);
    const hindi = "नमस्ते दुनिया ".repeat(50);
    expect((await countPromptTokens(model("claude-sonnet-4-5"), user(hindi))).bound).toBe(3 + 4 + Buffer.byteLength(hindi));
  });

  it("applies each vendor's image rule to the real dimensions", () => {
    expect(imageSizeOf(pngOf(640, 480))).toEqual({ width: 640, height: 480 });
    expect(imageTokens({ rule: "openai-tiles", base: 85, perTile: 170 }, { width: 4096, height: 8192 })).toBe(85 + 170 * 2 * 3); // 1024x2048 -> 768x1536
    expect(imageTokens({ rule: "openai-tiles", base: 85, perTile: 170 }, { width: 512, height: 512 })).toBe(85 + 170);
    expect(imageTokens({ rule: "openai-patches", multiplier: 1.62, maxPatches: 1536 }, { width: 1024, height: 1024 })).toBe(
      Math.ceil(1024 * 1.62),
    );
    expect(imageTokens({ rule: "openai-patches", multiplier: 1.62, maxPatches: 1536 }, { width: 4000, height: 4000 })).toBeLessThanOrEqual(
      Math.ceil(1536 * 1.62),
    );
    expect(imageTokens({ rule: "anthropic" }, { width: 1000, height: 1000 })).toBe(1334);
    expect(imageTokens({ rule: "anthropic" }, { width: 8000, height: 8000 })).toBe(1600);
    expect(imageTokens({ rule: "gemini-tiles", perTile: 258 }, { width: 3072, height: 3072 })).toBe(16 * 258);
  });

  it("metered: reserves the worst case (prompt + output cap) and caps the output at the model's maximum", async () => {
    undo = setEnv({ AI_PRICING_MODE: "metered", CREDIT_VALUE_USD: "0.001" });
    const q = await quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), flat: 15 });
    expect(q).toMatchObject({ flatCredits: null, maxOutputTokens: 32_768, worst: { promptTokens: 8, completionTokens: 32_768 } });
    expect(q.worstMicros).toBeCloseTo(8 * 2 + 32_768 * 8, 6);
    expect(q.reserve).toBe(Math.ceil(q.worstMicros / 1000));
    expect((await quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), maxTokens: 100, flat: 15 })).reserve).toBe(1);
    await expect(quoteChat({ model: model("gpt-4o-mini"), messages: user("Hi"), maxTokens: 20_000, flat: 15 })).rejects.toThrow(
      /maxTokens: at most 16,384 for gpt-4o-mini/,
    );
    // Two billable attempts (a route timeout may give up on a provider that has the request): twice the worst case.
    const twice = await quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), maxTokens: 1000, flat: 15, attempts: 2 });
    expect(twice.worstMicros).toBeCloseTo(2 * (8 * 2 + 1000 * 8), 6);
  });

  it("flat: refuses what the price (less its margin) does not pay for, naming the limit; caps the output to what it pays", async () => {
    const budget = costBudgetMicros(15, pricingSettings()); // 15 x $0.0039996 x 0.8
    expect(budget).toBe(Math.floor(15 * (99.99 / 25_000) * 1e6 * 0.8));
    const huge = user("word ".repeat(838_861)); // 4 MiB
    await expect(quoteChat({ model: model("gpt-4.1"), messages: huge, maxTokens: 128_000, flat: 15 })).rejects.toThrow(
      /maxTokens: at most 32,768 for gpt-4.1/,
    );
    await expect(quoteChat({ model: model("gpt-4.1"), messages: huge, maxTokens: 1000, flat: 15 })).rejects.toThrow(
      /Invalid body: messages: the input is about 838,8\d\d tokens; at the flat price of 15 credits \(\$0\.0480 of gpt-4.1 usage\) it may be at most about 23,99\d tokens/,
    );
    const small = await quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), flat: 15 });
    // 8 prompt tokens at $2/M, then $8/M per output token.
    expect(small).toMatchObject({ flatCredits: 15, reserve: 15, maxOutputTokens: Math.floor((budget - 16) / 8) });
    await expect(quoteChat({ model: model("gpt-4.1"), messages: user("Hi"), maxTokens: 8000, flat: 15 })).rejects.toThrow(
      new RegExp(
        `maxTokens: at most ${Math.floor((budget - 16) / 8).toLocaleString("en-US")} for gpt-4.1 with this input at the flat price of 15 credits`,
      ),
    );
    expect((await quoteChat({ model: model("gpt-4o-mini"), messages: user("Hi"), flat: 15 })).maxOutputTokens).toBe(16_384);
    // Claude's input is bounded by its bytes: a prompt of 20,000 bytes is more than 15 credits pay for on Sonnet.
    await expect(quoteChat({ model: model("claude-sonnet-4-5"), messages: user("x".repeat(20_000)), flat: 15 })).rejects.toThrow(
      /the input is 20,0\d\d bytes of text; .* at most about 15,99\d bytes of text/,
    );
  });

  it("flat: images priced at the dearest for auto, recordings by their measured length, both refused past the price", () => {
    undo = setEnv({ CREDIT_VALUE_USD: "0.001" }); // 80 credits = $0.08, $0.064 after the margin
    expect(quoteImage({ model: model("gpt-image-1"), prompt: "a cat", size: "1024x1024", quality: "medium", flat: 80 }).reserve).toBe(80);
    expect(() => quoteImage({ model: model("gpt-image-1"), prompt: "a cat", size: "1024x1024", quality: "auto", flat: 80 })).toThrow(
      /Invalid body: quality: a high-quality 1024x1024 image from gpt-image-1 costs up to \$0.1670/,
    );
    expect(() => quoteTranscription({ model: model("whisper-1"), seconds: 30 * 60, flat: 20 })).toThrow(
      /audio: the recording is 30.0 minutes long; at the flat price of 20 credits it may be at most 2.7 minutes/,
    );
  });

  it("embeddings: counted with the model's own tokenizer (text-embedding-3: cl100k); an input past the context is a 400 naming it", async () => {
    const thai = "สวัสดีครับ ".repeat(400);
    const q = await quoteEmbeddings({ model: model("text-embedding-3-small"), texts: [thai], flat: 1 });
    expect(q.worst.promptTokens).toBe(countTokens(thai, "cl100k"));
    expect(countTokens(thai, "cl100k")).toBeGreaterThan(countTokens(thai, "o200k"));
    await expect(quoteEmbeddings({ model: model("text-embedding-3-small"), texts: ["ok", "é".repeat(20_000)], flat: 1 })).rejects.toThrow(
      /Invalid body: input\.1: .*tokens \(cl100k\); text-embedding-3-small accepts at most 8,191 per input/,
    );
  });

  it("states each flat price's limits per model, after the margin", () => {
    const s = pricingSettings();
    const budget = costBudgetMicros(15, s);
    expect(flatChatLimits(model("gpt-4.1"), 15, s)).toEqual({
      maxInputTokens: Math.floor((budget - 8) / 2),
      maxOutputTokens: Math.floor((budget - 40) / 8),
    });
    const report = checkAiConfig();
    expect(report.problems).toEqual([]);
    expect(report.limits.find((l) => l.model === "gpt-4o-mini" && l.operation === "chat")).toMatchObject({
      credits: 15,
      maxOutputTokens: 16_384,
      inputUnit: "tokens",
    });
    expect(report.limits.find((l) => l.operation === "speech_to_text")).toMatchObject({ model: "whisper-1", maxMinutes: 10.6 });
    expect(report.limits.find((l) => l.operation === "embeddings")).toMatchObject({ model: "text-embedding-3-small", credits: 1 });
  });

  it("refuses at start-up a model in use that the catalog cannot price, or an incomplete addition", () => {
    undo = setEnv({
      AI_ALLOWED_MODELS: "gpt-4o,mystery-model",
      AI_MODELS: JSON.stringify({ "half-model": { kind: "chat", vendor: "openai" } }),
    });
    expect(checkAiConfig().problems).toEqual([
      "AI_MODELS: half-model: a new model needs perMillionTokens with input and output, contextWindow, maxOutputTokens",
      'AI_ALLOWED_MODELS: "mystery-model" is not in the model catalog (add it to AI_MODELS with its prices)',
    ]);
  });

  it("applies an operator's price override; a new model is counted by bytes unless it names its tokenizer", () => {
    undo = setEnv({
      AI_MODELS: JSON.stringify({
        "gpt-4o-mini": { perMillionTokens: { input: 1, output: 2 } },
        "llama-3.3-70b": {
          kind: "chat",
          vendor: "groq",
          contextWindow: 128_000,
          maxOutputTokens: 8192,
          perMillionTokens: { input: 0.59, output: 0.79 },
          imageInputTokens: 1000,
        },
      }),
    });
    expect(costMicros(model("gpt-4o-mini"), { promptTokens: 1000, completionTokens: 1000 })).toBeCloseTo(3000, 9);
    expect(model("gpt-4o-mini").maxOutputTokens).toBe(16_384);
    expect(model("gpt-4o-mini").tokenizer).toBe("o200k");
    expect(model("llama-3.3-70b")).toMatchObject({ tokenizer: "bytes", imageTokens: { rule: "fixed", tokens: 1000 } });
  });
});
