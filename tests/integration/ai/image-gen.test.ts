import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/ai/image-gen/route";

import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { balanceOf, ledger, setBalance, stubProviderForFile } from "./ai-test-kit";

const stub = await stubProviderForFile();

const gen = (cookie: string | undefined, body: unknown) => call(POST, { path: "/api/ai/image-gen", cookie, body });

describe("POST /api/ai/image-gen", () => {
  it("answers 401 without a session and 404 when image generation is disabled", async () => {
    expect((await gen(undefined, { prompt: "a cat" })).status).toBe(401);
    const { cookie } = await signIn();
    const undo = setEnv({ PUBLIC_AI_IMAGE_GEN_ENABLED: "false" });
    try {
      const res = await gen(cookie, { prompt: "a cat" });
      expect(res.status).toBe(404);
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
  });

  it("generates with the defaults, charges 80 and answers the spec's shape", async () => {
    const { user, cookie } = await signIn();
    const res = await gen(cookie, { prompt: "a cat on a sofa" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      image: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/),
      model: "image-model-1",
      size: "1024x1024",
      quality: "auto",
      format: "png",
      revised_prompt: "revised: a cat on a sofa",
      credits_used: 80,
      credits_remaining: 120,
    });
    expect(await balanceOf(user.id)).toBe(120);
    expect(stub.requests[0].body).toMatchObject({
      model: "gpt-image-1",
      prompt: "a cat on a sofa",
      n: 1,
      size: "1024x1024",
      quality: "auto",
      output_format: "png",
      background: "opaque",
    });
    expect((await ledger(user.id)).map((r) => [r.type, r.amount, r.operation])).toEqual([["usage", -80, "image_generation"]]);
  });

  it("passes every option and maps public model names to provider ids (AI_IMAGE_MODEL_MAP, priced by AI_MODELS)", async () => {
    const { cookie } = await signIn();
    const prices = { "1024x1024": 0.01, "1536x1024": 0.02, "1024x1536": 0.02 };
    const undo = setEnv({
      AI_IMAGE_MODEL_MAP: "image-model-1-mini=my-mini-model",
      AI_MODELS: JSON.stringify({
        "my-mini-model": {
          kind: "image",
          vendor: "openai",
          perMillionTokens: { input: 1 },
          perImage: { low: prices, medium: prices, high: prices },
        },
      }),
    });
    try {
      const res = await gen(cookie, {
        prompt: "logo",
        model: "image-model-1-mini",
        size: "1536x1024",
        quality: "high",
        output_format: "webp",
        background: "transparent",
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ model: "image-model-1-mini", size: "1536x1024", quality: "high", format: "webp" });
      expect(res.body.image).toMatch(/^data:image\/webp;base64,UklGR/);
      expect(stub.requests[0].body).toMatchObject({
        model: "my-mini-model",
        size: "1536x1024",
        quality: "high",
        output_format: "webp",
        background: "transparent",
      });
      const jpeg = await gen(cookie, { prompt: "photo", model: "image-model-1.5", output_format: "jpeg" });
      expect(jpeg.body.image).toMatch(/^data:image\/jpeg;base64,\/9j\//);
      expect(stub.requests[1].body.model).toBe("gpt-image-1.5");
    } finally {
      undo();
    }
  });

  it.each([
    [{}, /prompt/],
    [{ prompt: "" }, /prompt: must be 1 to 4000 characters/],
    [{ prompt: "x".repeat(4001) }, /prompt: must be 1 to 4000 characters/],
    [{ prompt: 42 }, /prompt/],
    [{ prompt: "a", model: "dall-e-3" }, /model/],
    [{ prompt: "a", size: "512x512" }, /size/],
    [{ prompt: "a", quality: "ultra" }, /quality/],
    [{ prompt: "a", output_format: "gif" }, /output_format/],
    [{ prompt: "a", background: "auto" }, /background/],
    [
      { prompt: "a", background: "transparent", output_format: "jpeg" },
      /background: transparent background needs output_format png or webp/,
    ],
  ])("answers 400 for %j without charging or calling upstream", async (body, message) => {
    const { user, cookie } = await signIn();
    const res = await gen(cookie, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await balanceOf(user.id)).toBe(200);
    expect(stub.count()).toBe(0);
  });

  it("accepts a prompt of exactly 4000 characters", async () => {
    const { cookie } = await signIn();
    expect((await gen(cookie, { prompt: "y".repeat(4000) })).status).toBe(200);
  });

  it("answers 402 before any upstream call", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 79);
    const res = await gen(cookie, { prompt: "a cat" });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/costs 80, you have 79/);
    expect(stub.count()).toBe(0);
  });

  it("answers 400 and refunds on a content-policy refusal", async () => {
    const { user, cookie } = await signIn();
    stub.next("images", { kind: "refuse" });
    const res = await gen(cookie, { prompt: "something forbidden" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "The image generation was refused by the AI provider's content policy", code: "content_policy" });
    expect(await balanceOf(user.id)).toBe(200);
    expect((await ledger(user.id)).map((r) => r.type)).toEqual(["usage", "refund"]);
  });

  it("answers 429 with Retry-After and refunds when the provider throttles", async () => {
    const { user, cookie } = await signIn();
    stub.next("images", { kind: "error", status: 429, code: "rate_limit_exceeded", retryAfter: "20" });
    const res = await gen(cookie, { prompt: "a cat" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("20");
    expect(res.body).toEqual({
      error: "AI provider is rate limiting requests; try again in 20 seconds (image generation)",
      code: "rate_limited",
    });
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("answers 503 on a provider failure (refunded) or a timeout (the provider had the request: the image's worst case, at most the flat price)", async () => {
    const { user, cookie } = await signIn();
    stub.next("images", { kind: "error", status: 500 });
    const failed = await gen(cookie, { prompt: "a cat" });
    expect(failed.status).toBe(503);
    expect(failed.body.error).toBe("AI provider failed with status 500 (image generation)");
    const undo = setEnv({ AI_TIMEOUT_MS: "300" });
    try {
      stub.next("images", { kind: "hang" });
      const slow = await gen(cookie, { prompt: "a cat" });
      expect(slow.status).toBe(503);
      expect(slow.body.error).toBe("AI provider did not answer the image generation within 300 ms");
    } finally {
      undo();
    }
    // A high-quality 1024x1024 gpt-image-1 (quality auto: the dearest) and its prompt: $0.16701 at $0.0039996 a credit.
    expect(await balanceOf(user.id)).toBe(200 - Math.ceil((0.167 * 1e6 + 2 * 5) / 3999.6));
  });

  it("renders a real, labelled PNG offline (size and transparency honoured)", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ OPENAI_API_KEY: undefined });
    try {
      const res = await gen(cookie, { prompt: "sunset", size: "1536x1024", background: "transparent" });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ model: "offline-image-model-1", format: "png", size: "1536x1024", credits_used: 80 });
      expect(res.body.revised_prompt).toBe("[offline] sunset");
      const png = Buffer.from(res.body.image.replace(/^data:image\/png;base64,/, ""), "base64");
      expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect(png.readUInt32BE(16)).toBe(1536);
      expect(png.readUInt32BE(20)).toBe(1024);
      expect(png[25]).toBe(6); // RGBA
      const idatLength = png.readUInt32BE(33);
      expect(png.subarray(37, 41).toString("latin1")).toBe("IDAT");
      expect(inflateSync(png.subarray(41, 41 + idatLength)).length).toBe(1024 * (1536 * 4 + 1));
      const jpeg = await gen(cookie, { prompt: "sunset", output_format: "jpeg" });
      expect(jpeg.body.format).toBe("png");
      expect(jpeg.body.image).toMatch(/^data:image\/png;base64,/);
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(40);
  });
});
