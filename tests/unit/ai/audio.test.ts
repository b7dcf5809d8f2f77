import { describe, expect, it } from "vitest";
import { audioDuration, detectAudioFormat, extensionOf, formatForExtension } from "@/lib/ai/audio";
import { flac, m4a, mp3, ogg, wav, webm } from "./audio-fixtures";

describe("audio format detection", () => {
  it.each([
    ["wav", wav(0.1)],
    ["flac", flac(1)],
    ["mp3", mp3(0.5)],
    ["mp3", mp3(0.5, false)],
    ["ogg", ogg(1)],
    ["m4a", m4a(1)],
    ["webm", webm(1)],
  ])("detects %s from its magic bytes", (format, bytes) => {
    expect(detectAudioFormat(bytes)).toBe(format);
  });

  it("rejects other content", () => {
    expect(detectAudioFormat(Buffer.from("hello world, not audio"))).toBeNull();
    expect(detectAudioFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]))).toBeNull();
    expect(detectAudioFormat(Buffer.from("RIFF\0\0\0\0AVI LIST"))).toBeNull();
    expect(detectAudioFormat(Buffer.alloc(2))).toBeNull();
  });

  it("maps extensions to formats", () => {
    expect(formatForExtension(extensionOf("Voice Memo.M4A"))).toBe("m4a");
    expect(formatForExtension(extensionOf("a.opus"))).toBe("ogg");
    expect(formatForExtension(extensionOf("a.txt"))).toBeNull();
    expect(formatForExtension(extensionOf("noextension"))).toBeNull();
  });
});

describe("audio duration", () => {
  it("reads WAV durations exactly from the header", () => {
    expect(audioDuration("wav", wav(2.5))).toEqual({ seconds: 2.5, how: "exact" });
    expect(audioDuration("wav", wav(1, 44100, 2, 16))).toEqual({ seconds: 1, how: "exact" });
  });

  it("reads FLAC, Ogg Opus, M4A and WebM durations from their headers", () => {
    expect(audioDuration("flac", flac(3.25)).seconds).toBeCloseTo(3.25, 5);
    expect(audioDuration("ogg", ogg(4)).seconds).toBeCloseTo(4, 5);
    expect(audioDuration("m4a", m4a(7.5)).seconds).toBeCloseTo(7.5, 3);
    expect(audioDuration("webm", webm(12.34)).seconds).toBeCloseTo(12.34, 5);
  });

  it("estimates CBR MP3 durations from the bitrate", () => {
    const d = audioDuration("mp3", mp3(10));
    expect(d.how).toBe("estimate");
    expect(d.seconds).toBeGreaterThan(9.8);
    expect(d.seconds).toBeLessThan(10.2);
  });

  it("reports unknown when the header has no duration", () => {
    expect(audioDuration("webm", webm(null))).toEqual({ seconds: null, how: null });
    expect(audioDuration("wav", Buffer.from("RIFF\0\0\0\0WAVE"))).toEqual({ seconds: null, how: null });
  });
});
