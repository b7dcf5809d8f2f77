import { describe, expect, it } from "vitest";
import * as keyRoute from "@/app/api/keys/[id]/route";
import * as transcriptions from "@/app/v1/audio/transcriptions/route";
import * as chat from "@/app/v1/chat/completions/route";
import * as embeddings from "@/app/v1/embeddings/route";
import * as images from "@/app/v1/images/generations/route";
import * as modelRoute from "@/app/v1/models/[...model]/route";
import * as models from "@/app/v1/models/route";
import * as unknownV1 from "@/app/v1/[...path]/route";
import { authenticateApiKey } from "@/lib/api-keys/authenticate-api-key";
import { FAILED_KEY_ATTEMPTS } from "@/lib/api-keys/resolve-key-request";
import { renderOfflineImage } from "@/lib/ai/providers/provider-offline";
import { keySpend } from "@/lib/api-keys/key-spend";
import { db } from "@/lib/db/client";
import { forgetUser } from "@/lib/users/account-state";
import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import * as sessionChat from "@/app/api/ai/chat/route";
import { wav } from "@/tests/unit/ai/audio-fixtures";
import { balanceOf, parseEvents, setBalance, stubProviderForFile } from "../ai/ai-test-kit";
import { openAiError, userWithKey, v1, v1Send } from "./key-test-kit";

const stub = await stubProviderForFile();

const hello = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Tell me a story" }] };
const completions = (secret: string | null, body: unknown, headers: Record<string, string> = {}) =>
  v1(chat.POST, "/v1/chat/completions", secret, { body, headers });

async function keyRow(id: string) {
  return (await db()).apiKey.findUniqueOrThrow({ where: { id } });
}

async function keyCharges(keyId: string) {
  return (await db()).creditOperation.findMany({ where: { apiKeyId: keyId, kind: "charge" }, orderBy: { createdAt: "asc" } });
}

describe("/v1 authentication", () => {
  it("answers OpenAI's 401 for a missing, malformed, unknown, revoked or expired key, and never repeats the key", async () => {
    const { cookie, secret, key } = await userWithKey();
    const missing = await completions(null, hello);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual(openAiError("missing_api_key", "invalid_request_error"));
    expect(missing.headers.get("x-request-id")).toBeTruthy();

    // A session cookie is no key.
    const withCookie = await call(chat.POST, { path: "/v1/chat/completions", cookie, body: hello });
    expect(withCookie.status).toBe(401);

    const malformed = await completions(null, hello, { authorization: `Basic ${secret}` });
    expect(malformed.body).toEqual(openAiError("invalid_api_key", "invalid_request_error"));
    const wrong = `sk-${"A".repeat(43)}`;
    const unknown = await completions(wrong, hello);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(openAiError("invalid_api_key", "invalid_request_error"));
    expect(unknown.text).not.toContain(wrong);

    expect((await completions(secret, hello)).status).toBe(200);
    await call(keyRoute.DELETE, { method: "DELETE", path: `/api/keys/${key.id}`, params: { id: key.id }, cookie });
    const revoked = await completions(secret, hello);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toBe("This API key was revoked");
    expect(revoked.text).not.toContain(secret);

    const expiring = await userWithKey({ expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await (await db()).apiKey.update({ where: { id: expiring.key.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    // Another instance's change is seen once the key cache (3 s) lets go of it.
    expect((await authenticateApiKey(expiring.secret, Date.now() + 3_001)).status).toBe("expired");
    const expired = await completions(expiring.secret, hello);
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toBe("This API key has expired");
  });

  it("refuses a key in the URL's query string without looking it up, even with a valid header", async () => {
    const { secret } = await userWithKey();
    for (const query of [`?api_key=${secret}`, `?key=anything`, `?x=${secret}`]) {
      const res = await v1(chat.POST, `/v1/chat/completions${query}`, secret, { body: hello });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(openAiError("key_in_url", "invalid_request_error"));
      expect(res.text).not.toContain(secret);
    }
    expect(stub.count()).toBe(0);
  });

  it(`refuses every key from an address after ${FAILED_KEY_ATTEMPTS.limit} failed attempts (429 with Retry-After), others still pass`, async () => {
    const { secret } = await userWithKey();
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    for (let i = 0; i < FAILED_KEY_ATTEMPTS.limit; i++) {
      expect((await v1(models.GET, "/v1/models", `sk-${String(i).padStart(43, "x")}`, { headers: from("203.0.113.9") })).status).toBe(401);
    }
    const blocked = await v1(models.GET, "/v1/models", `sk-${"y".repeat(43)}`, { headers: from("203.0.113.9") });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual(openAiError("too_many_failed_attempts", "requests"));
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Even the right key from that address waits; the same key from elsewhere does not.
    expect((await v1(models.GET, "/v1/models", secret, { headers: from("203.0.113.9") })).status).toBe(429);
    expect((await v1(models.GET, "/v1/models", secret, { headers: from("198.51.100.7") })).status).toBe(200);
  });

  it("answers unknown /v1 paths and unsupported methods in OpenAI's shape", async () => {
    const res = await call(unknownV1.POST, { path: "/v1/completions", body: {} });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(openAiError("unknown_url", "invalid_request_error"));
    const method = await call(chat.GET, { path: "/v1/chat/completions" });
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("POST");
    expect(method.body).toEqual(openAiError("method_not_allowed", "invalid_request_error"));
  });

  it("suspends a locked account's keys: 403 account_locked everywhere, /v1/models included, until the unlock", async () => {
    const { user, secret } = await userWithKey();
    await (await db()).user.update({ where: { id: user.id }, data: { lockedAt: new Date(), lockReason: "test" } });
    forgetUser(user.id);
    for (const res of [
      await v1(models.GET, "/v1/models", secret),
      await v1(modelRoute.GET, "/v1/models/gpt-4o-mini", secret, { params: { model: "gpt-4o-mini" } }),
      await completions(secret, hello),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(openAiError("account_locked", "invalid_request_error"));
      expect(res.body.error.message).toContain("locked");
    }
    expect(stub.count()).toBe(0);
    await (await db()).user.update({ where: { id: user.id }, data: { lockedAt: null, lockReason: null } });
    forgetUser(user.id);
    expect((await v1(models.GET, "/v1/models", secret)).status).toBe(200);
  });

  it("never repeats a credential-shaped value in an error, whichever field it was put in", async () => {
    const { secret } = await userWithKey();
    const pasted = [
      "sk-proj-" + "A1b2C3d4".repeat(6),
      "sk-ant-api03-" + "x9Y8z7W6".repeat(5),
      "AIza" + "Sy0123456789abcdefghijklmnopqrstu",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
      "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345",
      "a3f9".repeat(16),
    ];
    for (const value of pasted) {
      for (const body of [
        { ...hello, model: value },
        { ...hello, user: 42, stop: value, temperature: value },
        { messages: [{ role: value, content: "x" }] },
      ]) {
        const res = await completions(secret, body);
        expect(res.status, value).toBeGreaterThanOrEqual(400);
        expect(res.text, value).not.toContain(value);
        expect(res.text.slice(0, 400), value).not.toMatch(/sk-proj-A1b2|AIzaSy01|eyJhbGci|ghp_0123|a3f9a3f9a3f9/);
      }
    }
    // The session API too.
    const { cookie } = await signIn();
    const chatRes = await call(sessionChat.POST, {
      path: "/api/ai/chat",
      cookie,
      body: { model: pasted[0], messages: [{ role: "user", content: "hi" }] },
    });
    expect(chatRes.status).toBe(400);
    expect(chatRes.text).not.toContain(pasted[0]);
    expect(stub.count()).toBe(0);
  });
});

describe("POST /v1/chat/completions", () => {
  it("answers OpenAI's chat.completion, charged on the key through the ledger (15 credits flat)", async () => {
    const { user, secret, key } = await userWithKey();
    const before = await balanceOf(user.id);
    const res = await completions(secret, { ...hello, temperature: 0.5, max_tokens: 200, top_p: 1, user: "end-user-1" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "stub reply to: Tell me a story", refusal: null },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: { credits_charged: 15, credits_remaining: before - 15 },
      system_fingerprint: null,
    });
    expect(res.body.id).toMatch(/^chatcmpl-/);
    expect(res.body.usage.total_tokens).toBe(res.body.usage.prompt_tokens + res.body.usage.completion_tokens);
    expect(res.headers.get("x-credits-charged")).toBe("15");
    expect(res.headers.get("x-credits-remaining")).toBe(String(before - 15));
    expect(await balanceOf(user.id)).toBe(before - 15);
    // What went upstream: the model, the messages, the cap and temperature; nothing of ours.
    const sent = stub.requests[0].body;
    expect(sent).toMatchObject({
      model: "gpt-4o-mini",
      temperature: 0.5,
      max_tokens: 200,
      messages: [{ role: "user", content: "Tell me a story" }],
    });
    expect(sent.user).toBeUndefined();
    const [charge] = await keyCharges(key.id);
    expect(charge).toMatchObject({ status: "settled", amount: 15, model: "gpt-4o-mini" });
    const row = await keyRow(key.id);
    expect((await keySpend([key.id])).get(key.id)).toBe(15);
    expect(row.lastUsedAt).not.toBeNull();
  });

  it("streams chat.completion.chunk events with the usage chunk (include_usage), then [DONE], charging 20", async () => {
    const { user, secret, key } = await userWithKey();
    const before = await balanceOf(user.id);
    const res = await v1Send(chat.POST, "/v1/chat/completions", secret, {
      body: { ...hello, stream: true, stream_options: { include_usage: true } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("x-credits-reserved")).toBe("20");
    const events = parseEvents(await res.text());
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => e.json);
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0].id)).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    const text = chunks.flatMap((c) => c.choices.map((ch: { delta: { content?: string } }) => ch.delta.content ?? "")).join("");
    expect(text).toBe("stub reply to: Tell me a story");
    expect(chunks.at(-2)?.choices[0]).toMatchObject({ delta: {}, finish_reason: "stop" });
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ credits_charged: 20, credits_remaining: before - 20 });
    expect(last.usage.total_tokens).toBeGreaterThan(0);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(await balanceOf(user.id)).toBe(before - 20);
    expect((await keyCharges(key.id))[0]).toMatchObject({ status: "settled", amount: 20, model: "gpt-4o-mini" });
  });

  it("streams without a usage chunk when include_usage is not asked", async () => {
    const { secret } = await userWithKey();
    const res = await v1Send(chat.POST, "/v1/chat/completions", secret, { body: { ...hello, stream: true } });
    const events = parseEvents(await res.text());
    const chunks = events.slice(0, -1).map((e) => e.json);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");
    expect(chunks.some((c) => "usage" in c)).toBe(false);
  });

  it("takes base64 data-URL images (30 credits) and refuses remote image URLs", async () => {
    const { user, secret } = await userWithKey();
    const png = `data:image/png;base64,${renderOfflineImage("x", "1024x1024", false).toString("base64")}`;
    const before = await balanceOf(user.id);
    const body = {
      model: "gpt-4o-mini",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is it?" },
            { type: "image_url", image_url: { url: png, detail: "low" } },
          ],
        },
      ],
    };
    const ok = await completions(secret, body);
    expect(ok.status).toBe(200);
    expect(ok.body.usage.credits_charged).toBe(30);
    expect(stub.requests[0].body.messages[0].content[1]).toMatchObject({ type: "image_url", image_url: { url: png } });
    const remote = await completions(secret, {
      ...body,
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }],
    });
    expect(remote.status).toBe(400);
    expect(remote.body).toEqual(openAiError("invalid_value", "invalid_request_error", "messages.0.content.0.image_url.url"));
    expect(await balanceOf(user.id)).toBe(before - 30);
  });

  it("refuses what it does not support with a 400 naming the parameter, calling nothing and charging nothing", async () => {
    const { user, secret } = await userWithKey();
    const before = await balanceOf(user.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ messages: hello.messages }, "model"],
      [{ model: "gpt-4o-mini" }, "messages"],
      [{ ...hello, n: 2 }, "n"],
      [{ ...hello, tools: [{ type: "function", function: { name: "f" } }] }, "tools"],
      [{ ...hello, response_format: { type: "json_object" } }, "response_format"],
      [{ ...hello, stop: ["\n"] }, "stop"],
      [{ ...hello, frobnicate: true }, "frobnicate"],
      [{ ...hello, temperature: 3 }, "temperature"],
      [{ ...hello, messages: [{ role: "tool", content: "x" }] }, "messages.0.role"],
      [{ ...hello, stream_options: { include_usage: true } }, "stream_options"],
      [{ ...hello, max_tokens: 1_000_000 }, "max_tokens"],
    ];
    for (const [body, param] of cases) {
      const res = await completions(secret, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ type: "invalid_request_error", param });
      expect(res.body.error.message).toContain(param);
    }
    const invalidJson = await v1(chat.POST, "/v1/chat/completions", secret, {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(invalidJson.status).toBe(400);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(before);
  });

  it("answers an unknown model 404 model_not_found and a model outside the key's list 403 model_not_allowed", async () => {
    const { secret } = await userWithKey({ models: ["gpt-4o-mini"] });
    const unknown = await completions(secret, { ...hello, model: "gpt-99" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(openAiError("model_not_found", "invalid_request_error", "model"));
    const notAllowed = await completions(secret, { ...hello, model: "gpt-4.1-mini" });
    expect(notAllowed.status).toBe(403);
    expect(notAllowed.body).toEqual(openAiError("model_not_allowed", "invalid_request_error", "model"));
    const wrongKind = await completions(secret, { ...hello, model: "text-embedding-3-small" });
    expect(wrongKind.status).toBe(400);
    expect(stub.count()).toBe(0);
  });

  it("answers a key limited to other call kinds 403 permission_denied", async () => {
    const { secret } = await userWithKey({ kinds: ["embeddings"] });
    const res = await completions(secret, hello);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(openAiError("permission_denied", "invalid_request_error"));
    expect((await v1(embeddings.POST, "/v1/embeddings", secret, { body: { model: "text-embedding-3-small", input: "x" } })).status).toBe(
      200,
    );
  });

  it("answers no credits with OpenAI's 429 insufficient_quota and x-should-retry: false, calling nothing", async () => {
    const { user, secret, key } = await userWithKey();
    await setBalance(user.id, 10);
    const res = await completions(secret, hello);
    expect(res.status).toBe(429);
    expect(res.body).toEqual(openAiError("insufficient_quota", "insufficient_quota"));
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(10);
    expect((await keyRow(key.id)).windowSpent).toBe(0);
  });

  it("keeps a key within its budget (429 budget_exceeded), refunds a failed call's share of it, and resets it with a new window", async () => {
    const { user, secret, key } = await userWithKey({ budget: { credits: 40, period: "day" } });
    expect((await completions(secret, hello)).status).toBe(200);
    stub.next("chat", { kind: "error", status: 500 });
    const failed = await completions(secret, hello);
    expect(failed.status).toBe(503);
    expect(failed.body.error.type).toBe("server_error");
    expect((await keyRow(key.id)).windowSpent).toBe(15);
    expect((await completions(secret, hello)).status).toBe(200);
    const over = await completions(secret, hello);
    expect(over.status).toBe(429);
    expect(over.body).toEqual(openAiError("budget_exceeded", "insufficient_quota"));
    expect(over.body.error.message).toContain("30 of 40 credits");
    expect(over.headers.get("x-should-retry")).toBe("false");
    const balance = await balanceOf(user.id);
    // Yesterday's window: the next call starts a new one.
    await (await db()).apiKey.update({ where: { id: key.id }, data: { windowStart: new Date(Date.now() - 2 * 86_400_000) } });
    expect((await completions(secret, hello)).status).toBe(200);
    expect(await balanceOf(user.id)).toBe(balance - 15);
    const row = await keyRow(key.id);
    expect(row.windowSpent).toBe(15);
    expect((await keySpend([key.id])).get(key.id)).toBe(45);
  });

  it("enforces a key's requests per minute with 429 rate_limit_exceeded and Retry-After", async () => {
    const { secret } = await userWithKey({ rpm: 2 });
    const first = await v1(models.GET, "/v1/models", secret);
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    expect((await completions(secret, hello)).status).toBe(200);
    const limited = await completions(secret, hello);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(openAiError("rate_limit_exceeded", "requests"));
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-should-retry")).toBeNull();
    expect(stub.count()).toBe(1);
  });
});

describe("POST /v1/embeddings, /v1/images/generations, /v1/audio/transcriptions", () => {
  it("embeds text as floats or base64 float32, shortened to `dimensions`, for 1 credit", async () => {
    const { user, secret } = await userWithKey();
    const before = await balanceOf(user.id);
    const floats = await v1(embeddings.POST, "/v1/embeddings", secret, {
      body: { model: "text-embedding-3-small", input: ["one", "two"] },
    });
    expect(floats.status).toBe(200);
    expect(floats.body).toMatchObject({ object: "list", model: "text-embedding-3-small", usage: { credits_charged: 1 } });
    expect(floats.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    const b64 = await v1(embeddings.POST, "/v1/embeddings", secret, {
      body: { model: "text-embedding-3-small", input: "one", encoding_format: "base64", dimensions: 4 },
    });
    const bytes = Buffer.from(b64.body.data[0].embedding, "base64");
    const vector = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
    expect(vector).toHaveLength(4);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    expect(await balanceOf(user.id)).toBe(before - 2);
    const tooMany = await v1(embeddings.POST, "/v1/embeddings", secret, {
      body: { model: "text-embedding-3-small", input: "x", dimensions: 5000 },
    });
    expect(tooMany.body).toEqual(openAiError("invalid_value", "invalid_request_error", "dimensions"));
    const tokens = await v1(embeddings.POST, "/v1/embeddings", secret, { body: { model: "text-embedding-3-small", input: [[1, 2, 3]] } });
    expect(tokens.body.error.param).toBe("input");
  });

  it("generates an image as b64_json for 80 credits and refuses hosted URLs", async () => {
    const { user, secret } = await userWithKey();
    const before = await balanceOf(user.id);
    const res = await v1(images.POST, "/v1/images/generations", secret, {
      body: { model: "gpt-image-1", prompt: "a red fox", size: "1024x1024", quality: "low" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data[0].b64_json.length).toBeGreaterThan(10);
    expect(res.headers.get("x-credits-charged")).toBe("80");
    expect(await balanceOf(user.id)).toBe(before - 80);
    const url = await v1(images.POST, "/v1/images/generations", secret, { body: { prompt: "x", response_format: "url" } });
    expect(url.body).toEqual(openAiError("invalid_value", "invalid_request_error", "response_format"));
    const size = await v1(images.POST, "/v1/images/generations", secret, { body: { prompt: "x", size: "256x256" } });
    expect(size.body.error.param).toBe("size");
  });

  it("transcribes the multipart field `file` as json, text or verbose_json for 20 credits", async () => {
    const { user, secret } = await userWithKey();
    const before = await balanceOf(user.id);
    const form = (fields: Record<string, string>, file: Buffer | null = wav(1.5), field = "file") => {
      const data = new FormData();
      if (file) data.append(field, new Blob([new Uint8Array(file)]), "memo.wav");
      for (const [k, v] of Object.entries(fields)) data.append(k, v);
      return data;
    };
    const json = await v1(transcriptions.POST, "/v1/audio/transcriptions", secret, { rawBody: form({ model: "whisper-1" }) });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({ text: "stub transcription of the audio", usage: { type: "duration", seconds: 1.5 } });
    const text = await v1(transcriptions.POST, "/v1/audio/transcriptions", secret, {
      rawBody: form({ model: "whisper-1", response_format: "text" }),
    });
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(text.text).toBe("stub transcription of the audio");
    const verbose = await v1(transcriptions.POST, "/v1/audio/transcriptions", secret, {
      rawBody: form({ response_format: "verbose_json", language: "en" }),
    });
    expect(verbose.body).toMatchObject({ task: "transcribe", language: "english", duration: 1.5, text: "stub transcription of the audio" });
    expect(await balanceOf(user.id)).toBe(before - 60);
    const missing = await v1(transcriptions.POST, "/v1/audio/transcriptions", secret, { rawBody: form({}, wav(1), "audio") });
    expect(missing.body).toEqual(openAiError("invalid_value", "invalid_request_error", "file"));
    const srt = await v1(transcriptions.POST, "/v1/audio/transcriptions", secret, { rawBody: form({ response_format: "srt" }) });
    expect(srt.body.error.param).toBe("response_format");
    expect(await balanceOf(user.id)).toBe(before - 60);
  });
});

describe("GET /v1/models", () => {
  it("lists what the key may use, with prices, and answers 404 for anything else", async () => {
    const all = await userWithKey();
    const list = await v1(models.GET, "/v1/models", all.secret);
    expect(list.body.object).toBe("list");
    const ids = list.body.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["gpt-4o-mini", "text-embedding-3-small", "gpt-image-1", "whisper-1"]));
    expect(list.body.data.find((m: { id: string }) => m.id === "gpt-4o-mini")).toMatchObject({
      object: "model",
      owned_by: "openai",
      kind: "chat",
      pricing: { mode: "flat", credits_per_call: 15 },
    });
    const narrow = await userWithKey({ models: ["gpt-4o-mini"] });
    const narrowList = await v1(models.GET, "/v1/models", narrow.secret);
    expect(narrowList.body.data.map((m: { id: string }) => m.id)).toEqual(["gpt-4o-mini"]);
    const one = await v1(modelRoute.GET, "/v1/models/gpt-4o-mini", narrow.secret, { params: { model: "gpt-4o-mini" } });
    expect(one.body.id).toBe("gpt-4o-mini");
    const hidden = await v1(modelRoute.GET, "/v1/models/whisper-1", narrow.secret, { params: { model: "whisper-1" } });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(openAiError("model_not_found", "invalid_request_error", "model"));
  });

  it("lists to a key limited to some kinds of call only the models of those kinds", async () => {
    const chatOnly = await userWithKey({ kinds: ["chat"] });
    const list = await v1(models.GET, "/v1/models", chatOnly.secret);
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    expect(list.body.data.every((m: { kind: string }) => m.kind === "chat")).toBe(true);
    for (const id of ["text-embedding-3-small", "gpt-image-1", "whisper-1"]) {
      const one = await v1(modelRoute.GET, `/v1/models/${id}`, chatOnly.secret, { params: { model: id } });
      expect(one.status, id).toBe(404);
    }
    const embedOnly = await userWithKey({ kinds: ["embeddings"] });
    const embedList = await v1(models.GET, "/v1/models", embedOnly.secret);
    expect(embedList.body.data.map((m: { kind: string }) => m.kind)).toEqual(embedList.body.data.map(() => "embeddings"));
  });

  it("answers 404 everywhere when API_KEYS_ENABLED is false", async () => {
    const { secret } = await userWithKey();
    const undo = setEnv({ API_KEYS_ENABLED: "false" });
    try {
      const res = await v1(models.GET, "/v1/models", secret);
      expect(res.status).toBe(404);
      expect(res.body.error.type).toBe("invalid_request_error");
      expect((await completions(secret, hello)).status).toBe(404);
    } finally {
      undo();
    }
  });
});
