import { inflateSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { toIso6391 } from "@/lib/ai/language";
import { encodePng } from "@/lib/ai/providers/png";
import { chunkText, createOfflineProvider, offlineAnswer } from "@/lib/ai/providers/provider-offline";
import { aiSettings, resolveChatModel } from "@/lib/ai/settings";
import { allocationPeriodEnd } from "@/lib/credits/allocation-period";
import { setEnv } from "@/tests/helpers/env";
import { wav } from "./audio-fixtures";

let undo: (() => void) | undefined;
afterEach(() => {
  undo?.();
  undo = undefined;
});

describe("ISO 639-1 conversion", () => {
  it("converts verbose_json language names and passes codes through", () => {
    expect(toIso6391("english")).toBe("en");
    expect(toIso6391("German")).toBe("de");
    expect(toIso6391("fr")).toBe("fr");
    expect(toIso6391("pt-BR")).toBe("pt");
    expect(toIso6391("klingon")).toBe("und");
    expect(toIso6391(undefined)).toBe("und");
  });
});

describe("PNG encoder", () => {
  it("writes a valid RGB PNG whose pixels round-trip", () => {
    const png = encodePng(3, 2, false, (x, y, out) => {
      out[0] = x * 100;
      out[1] = y * 100;
      out[2] = 7;
    });
    expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
    expect(png.readUInt32BE(16)).toBe(3);
    expect(png[25]).toBe(2);
    const raw = inflateSync(png.subarray(41, 41 + png.readUInt32BE(33)));
    // Undo the Sub filter of row 1 and compare the pixel at (2, 1).
    const row = raw.subarray(10, 20);
    expect(row[0]).toBe(1);
    const px = [0, 0, 0];
    for (let x = 0; x < 3; x++) for (let c = 0; c < 3; c++) px[c] = (px[c] + row[1 + x * 3 + c]) & 0xff;
    expect(px).toEqual([200, 100, 7]);
    expect(png.subarray(-8, -4).toString("latin1")).toBe("IEND");
  });
});

describe("settings", () => {
  it("has documented defaults", () => {
    undo = setEnv({
      AI_CHAT_MODEL: undefined,
      AI_ALLOWED_MODELS: undefined,
      AI_IMAGE_MODEL_MAP: undefined,
      AI_TRANSCRIPTION_MODEL: undefined,
      AI_EMBEDDING_MODEL: undefined,
      AI_TIMEOUT_MS: undefined,
    });
    expect(aiSettings()).toEqual({
      chatModel: "gpt-4o-mini",
      // Offline (no provider key): every chat model of the catalog is served.
      allowedModels: [
        "gpt-4o-mini",
        "gpt-4o",
        "gpt-4.1-mini",
        "gpt-4.1",
        "claude-haiku-4-5",
        "claude-sonnet-4-5",
        "gemini-2.5-flash",
        "gemini-2.5-pro",
      ],
      imageModels: { "image-model-1": "gpt-image-1", "image-model-1.5": "gpt-image-1.5", "image-model-1-mini": "gpt-image-1-mini" },
      transcriptionModel: "whisper-1",
      embeddingModel: "text-embedding-3-small",
      timeoutMs: 60000,
      longTimeoutMs: 60000,
    });
  });

  it("reads overrides (JSON image map, allowed list always containing the default)", () => {
    undo = setEnv({
      AI_CHAT_MODEL: "llama3",
      AI_ALLOWED_MODELS: "mistral, qwen",
      AI_IMAGE_MODEL_MAP: '{"image-model-1":"sdxl"}',
      AI_TIMEOUT_MS: "90000",
    });
    const s = aiSettings();
    expect(s.allowedModels).toEqual(["llama3", "mistral", "qwen"]);
    expect(s.imageModels["image-model-1"]).toBe("sdxl");
    expect(s.longTimeoutMs).toBe(60000);
    expect(resolveChatModel(undefined)).toBe("llama3");
    expect(resolveChatModel("qwen")).toBe("qwen");
    expect(() => resolveChatModel("gpt-4o")).toThrow(/not available; use one of llama3, mistral, qwen/);
  });
});

describe("credit allowance reset", () => {
  it("is the 1st of next month for free users and one month after the last reset for paid ones", () => {
    const now = new Date("2026-11-23T10:00:00Z");
    expect(allocationPeriodEnd({ tier: "free", lastReset: new Date("2026-11-01T00:00:00Z") }, now).toISOString()).toBe(
      "2026-12-01T00:00:00.000Z",
    );
    // A free account that signed up mid-month still renews on the 1st (not sign-up plus a month).
    expect(allocationPeriodEnd({ tier: "free", lastReset: new Date("2026-11-15T08:00:00Z") }, now).toISOString()).toBe(
      "2026-12-01T00:00:00.000Z",
    );
    expect(allocationPeriodEnd({ tier: "pro", lastReset: new Date("2026-11-15T08:00:00Z") }, now).toISOString()).toBe(
      "2026-12-15T08:00:00.000Z",
    );
    // The plan's own renewal wins when it is known (the period ends on the 28th, not the 1st).
    expect(
      allocationPeriodEnd(
        { tier: "pro", lastReset: new Date("2026-11-15T08:00:00Z"), renewsAt: new Date("2026-12-28T10:00:00Z") },
        now,
      ).toISOString(),
    ).toBe("2026-12-28T10:00:00.000Z");
    expect(allocationPeriodEnd({ tier: "pro", lastReset: null }, now).toISOString()).toBe("2026-12-01T00:00:00.000Z");
  });
});

describe("offline provider", () => {
  const provider = createOfflineProvider(aiSettings());
  const req = { messages: [{ role: "user" as const, content: "What is the capital of France?" }] };

  it("answers deterministically from the input, labelled offline", async () => {
    const a = await provider.chat(req);
    const b = await provider.chat(req);
    expect(a).toEqual(b);
    expect(a.text).toMatch(/^\[offline\] /);
    expect(a.text).toContain("6 words");
    expect(a.model).toBe("offline-gpt-4o-mini");
    expect(a.usage.promptTokens).toBeGreaterThan(0);
    expect((await provider.chat({ messages: [{ role: "user", content: "Something else" }] })).text).not.toBe(a.text);
  });

  it("streams the same text in several chunks, then usage", async () => {
    const parts = [];
    for await (const part of provider.streamChat(req)) parts.push(part);
    const text = parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    expect(parts.filter((p) => p.type === "text").length).toBeGreaterThanOrEqual(3);
    expect(text).toBe(offlineAnswer(req));
    expect(parts.at(-1)).toMatchObject({ type: "usage", model: "offline-gpt-4o-mini" });
    expect(chunkText("a b c d e f g").join("")).toBe("a b c d e f g");
  });

  it("stops streaming when the signal aborts", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const part of provider.streamChat({ ...req, signal: controller.signal })) {
          if (part.type === "text") seen.push(part.text);
          controller.abort();
        }
      })(),
    ).rejects.toThrow(/aborted/);
    expect(seen).toHaveLength(1);
  });

  it("states the recording's real duration", async () => {
    const t = await provider.transcribe({ audio: wav(3.2), filename: "a.wav", mimeType: "audio/wav" });
    expect(t.duration).toBe(3.2);
    expect(t.text).toMatch(/^\[offline\] .*WAV recording of 3\.20 seconds/);
    expect(t.model).toBe("offline-whisper-1");
  });

  it("answers embeddings: deterministic unit vectors of the catalog model's dimensions, labelled offline", async () => {
    const a = await provider.embed(["alpha beta", "gamma"], undefined, "text-embedding-3-small");
    expect(a.model).toBe("offline-text-embedding-3-small");
    expect(a.vectors).toHaveLength(2);
    expect(a.vectors[0]).toHaveLength(1536);
    expect(Math.hypot(...a.vectors[0])).toBeCloseTo(1, 6);
    expect((await provider.embed(["alpha beta"], undefined, "text-embedding-3-small")).vectors[0]).toEqual(a.vectors[0]);
  });
});
