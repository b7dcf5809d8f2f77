import { describe, expect, it } from "vitest";
import { POST } from "@/app/api/ai/speech-to-text/route";

import { setEnv } from "@/tests/helpers/env";
import { call, signIn } from "@/tests/helpers/http";
import { flac, m4a, mp3, ogg, wav, webm } from "@/tests/unit/ai/audio-fixtures";
import { balanceOf, ledger, setBalance, stubProviderForFile } from "./ai-test-kit";

const stub = await stubProviderForFile();

const MB = 1024 * 1024;

function form(file: Buffer | null, filename = "clip.wav", extra: Record<string, string> = {}, field = "audio"): FormData {
  const data = new FormData();
  if (file) data.append(field, new Blob([new Uint8Array(file)]), filename);
  for (const [k, v] of Object.entries(extra)) data.append(k, v);
  return data;
}

const upload = (cookie: string | undefined, body: FormData) => call(POST, { path: "/api/ai/speech-to-text", cookie, rawBody: body });

/** A multipart body streamed chunk by chunk (no Content-Length), counting how much the server pulled. */
function streamedUpload(fileBytes: number) {
  const boundary = "----test-boundary-123";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const first = wav(0.01);
  const chunk = Buffer.alloc(256 * 1024, 1);
  let sent = 0;
  let pulled = 0;
  let stage = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 0) {
        stage = 1;
        const out = Buffer.concat([head, first]);
        pulled += out.length;
        sent = first.length;
        return controller.enqueue(out);
      }
      if (sent < fileBytes) {
        const n = Math.min(chunk.length, fileBytes - sent);
        sent += n;
        pulled += n;
        return controller.enqueue(chunk.subarray(0, n));
      }
      controller.enqueue(tail);
      controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, pulled: () => pulled };
}

describe("POST /api/ai/speech-to-text", () => {
  it("answers 401 without a session and 404 when audio input is disabled", async () => {
    expect((await upload(undefined, form(wav(1)))).status).toBe(401);
    const { cookie } = await signIn();
    const undo = setEnv({ PUBLIC_AI_AUDIO_INPUT_ENABLED: "false" });
    try {
      expect((await upload(cookie, form(wav(1)))).status).toBe(404);
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
  });

  it("transcribes through the provider (verbose_json, language as ISO 639-1) and charges 20", async () => {
    const { user, cookie } = await signIn();
    stub.transcription = { text: "hello from the stub", language: "german", duration: 2.5 };
    const res = await upload(cookie, form(wav(2.5), "memo.wav"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ text: "hello from the stub", language: "de", duration: 2.5 });
    expect(await balanceOf(user.id)).toBe(180);
    expect((await ledger(user.id)).map((r) => [r.type, r.amount, r.operation])).toEqual([["usage", -20, "speech_to_text"]]);
    const sent = stub.requests[0].body;
    expect(sent.model).toBe("whisper-1");
    expect(sent.response_format).toBe("verbose_json");
    expect(sent.file).toMatchObject({ filename: "memo.wav", size: wav(2.5).length });
    expect(sent.file.head.startsWith(Buffer.from("RIFF").toString("hex"))).toBe(true);
  });

  it("passes a language hint and rejects an invalid one", async () => {
    const { cookie } = await signIn();
    expect((await upload(cookie, form(wav(1), "a.wav", { language: "fr" }))).status).toBe(200);
    expect(stub.requests[0].body.language).toBe("fr");
    const bad = await upload(cookie, form(wav(1), "a.wav", { language: "french" }));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/language must be an ISO 639-1 code/);
  });

  it.each([
    ["clip.webm", webm(3)],
    ["clip.wav", wav(1)],
    ["clip.mp3", mp3(1)],
    ["clip.m4a", m4a(1)],
    ["clip.ogg", ogg(1)],
    ["clip.flac", flac(1)],
  ])("accepts %s", async (name, bytes) => {
    const { cookie } = await signIn();
    const res = await upload(cookie, form(bytes, name));
    expect(res.status).toBe(200);
    expect(stub.count("transcriptions")).toBe(1);
  });

  it.each([
    ["no audio field", form(wav(1), "a.wav", {}, "file"), /field "audio" is missing/],
    ["an empty file", form(Buffer.alloc(0), "a.wav"), /"audio" file is empty/],
    ["audio sent as a text value", form(null, "a.wav", { audio: "UklGRg==" }), /field "audio" must be a file upload/],
    [
      "content that is not audio",
      form(Buffer.from("just some text, definitely not audio"), "a.wav"),
      /content is not WebM, WAV, MP3, M4A, OGG or FLAC/,
    ],
    ["a name that does not match the content", form(wav(1), "a.mp3"), /named \.mp3 but its content is WAV/],
    ["an unsupported extension", form(wav(1), "a.txt"), /must end in one of \.webm, \.wav, \.mp3, \.m4a, \.ogg, \.flac/],
    ["a PNG renamed to .wav", form(Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), "a.wav"), /content is not/],
  ])("answers 400 for %s without charging", async (_, body, message) => {
    const { user, cookie } = await signIn();
    const res = await upload(cookie, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect(await balanceOf(user.id)).toBe(200);
    expect(stub.count()).toBe(0);
  });

  it("answers 400 for a body that is not multipart", async () => {
    const { cookie } = await signIn();
    const res = await call(POST, { path: "/api/ai/speech-to-text", cookie, body: { audio: "base64..." } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/multipart\/form-data/);
  });

  it("answers 413 from the declared Content-Length without reading the body", async () => {
    const { user, cookie } = await signIn();
    const big = streamedUpload(30 * MB);
    const res = await call(POST, {
      path: "/api/ai/speech-to-text",
      cookie,
      rawBody: big.body,
      headers: { "content-type": big.contentType, "content-length": String(30 * MB) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "Audio file is larger than 25 MB", code: "payload_too_large" });
    expect(big.pulled()).toBeLessThan(2 * MB);
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("answers 413 while streaming a body without Content-Length, without buffering it all", async () => {
    const { user, cookie } = await signIn();
    const big = streamedUpload(60 * MB);
    const res = await call(POST, {
      path: "/api/ai/speech-to-text",
      cookie,
      rawBody: big.body,
      headers: { "content-type": big.contentType },
    });
    expect(res.status).toBe(413);
    expect(big.pulled()).toBeGreaterThan(25 * MB);
    expect(big.pulled()).toBeLessThan(28 * MB);
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("accepts exactly 25 MB and refuses one byte more", async () => {
    const { cookie } = await signIn();
    // 48 kHz stereo 32-bit: 25 MB play 68 seconds, inside what the flat price pays for.
    const header = wav(0.01, 48000, 2, 32).subarray(0, 44);
    const exact = Buffer.concat([header, Buffer.alloc(25 * MB - 44, 1)]);
    expect((await upload(cookie, form(exact, "max.wav"))).status).toBe(200);
    // As bytes, not FormData: undici's FormData body stream throws (unhandled) when the server stops
    // reading it part way, which is the point here; a socket's body has no such trouble.
    const over = Buffer.concat([header, Buffer.alloc(25 * MB - 43, 1)]);
    const boundary = "----over-limit";
    const raw = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="over.wav"\r\nContent-Type: audio/wav\r\n\r\n`),
      over,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const refused = await call(POST, {
      path: "/api/ai/speech-to-text",
      cookie,
      rawBody: raw,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(refused.status).toBe(413);
    expect(stub.count()).toBe(1);
  });

  it("answers 402 before any upstream call", async () => {
    const { user, cookie } = await signIn();
    await setBalance(user.id, 19);
    const res = await upload(cookie, form(wav(1)));
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/costs 20, you have 19/);
    expect(stub.count()).toBe(0);
  });

  it("refunds on a provider failure (503: every route down) and a refusal (400)", async () => {
    const { user, cookie } = await signIn();
    stub.next("transcriptions", { kind: "error", status: 500 });
    const failed = await upload(cookie, form(wav(1)));
    expect(failed.status).toBe(503);
    expect(failed.body.error).toBe("AI provider failed with status 500 (transcription)");
    stub.next("transcriptions", { kind: "refuse" });
    const refused = await upload(cookie, form(wav(1)));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/content policy/);
    expect(await balanceOf(user.id)).toBe(200);
  });

  it("offline: states the recording's real duration, labelled", async () => {
    const { user, cookie } = await signIn();
    const undo = setEnv({ OPENAI_API_KEY: undefined });
    try {
      const res = await upload(cookie, form(wav(2.75), "memo.wav"));
      expect(res.status).toBe(200);
      expect(res.body.duration).toBe(2.75);
      expect(res.body.language).toBe("en");
      expect(res.body.text).toMatch(/^\[offline\] .*WAV recording of 2\.75 seconds/);
      // Measured from the frames: whole 4,096-sample blocks of 44.1 kHz.
      const fl = await upload(cookie, form(flac(61.5), "song.flac"));
      expect(fl.body.duration).toBeCloseTo(61.5, 1);
      const recorded = await upload(cookie, form(webm(5, null), "rec.webm"));
      expect(recorded.body.duration).toBe(5);
      const empty = await upload(cookie, form(webm(0, null), "empty.webm"));
      expect(empty.body.duration).toBe(0);
      expect(empty.body.text).toMatch(/no audio frames were found/);
    } finally {
      undo();
    }
    expect(stub.count()).toBe(0);
    expect(await balanceOf(user.id)).toBe(200 - 4 * 20);
  });
});
