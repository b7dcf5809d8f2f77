import { describe, expect, it } from "vitest";
import { detectAudioFormat, extensionOf, formatForExtension, LOWEST_BITS_PER_SECOND, measureAudio } from "@/lib/ai/audio";
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

describe("audio length, measured from the data", () => {
  it.each([
    ["wav", () => wav(2.5), 2.5],
    ["wav (stereo 44.1 kHz)", () => wav(1, 44100, 2, 16), 1],
    ["mp3", () => mp3(10), 10],
    ["flac", () => flac(3.25), 3.25],
    ["ogg", () => ogg(4), 4],
    ["webm", () => webm(12.34), 12.34],
    ["webm without a Duration (MediaRecorder)", () => webm(5, null), 5],
    ["m4a", () => m4a(7.5), 7.5],
  ])("%s: the length a decoder plays", async (label, make, seconds) => {
    const bytes = make();
    const format = detectAudioFormat(bytes)!;
    const length = await measureAudio(format, bytes);
    expect(length.measured).toBeGreaterThan(seconds - 0.1);
    expect(length.measured).toBeLessThan(seconds + 0.1);
    expect(length.seconds).toBeGreaterThanOrEqual(length.measured);
    // Little is left unaccounted in a well-formed file (an MP3's ID3 tag is skipped whole).
    expect(length.seconds - length.measured).toBeLessThan(0.5);
  });

  // A header that lies about the length never shortens the price: each file plays an hour (or more)
  // while its header claims a few seconds.
  it.each([
    ["wav: byte rate and data size claim 10 s", () => wav(3600, 8000, 1, 8, { claims: 10 }), 3600],
    ["mp3: a Xing frame claims 10 s", () => mp3(1800, false, { lie: { claims: 10 } }), 1800],
    ["mp3: a 128 kbps first frame, then 8 kbps frames", () => mp3(3600, false, { lowRate: true }), 3600],
    ["flac: STREAMINFO claims 10 s", () => flac(600, 44100, { claims: 10 }), 600],
    ["ogg: the granule positions claim 10 s", () => ogg(3600, { claims: 10 }), 3600],
    ["webm: the Segment's Duration claims 10 s", () => webm(3600, 10), 3600],
    ["m4a: the movie and media headers claim 10 s", () => m4a(3600, { claims: 10 }), 3600],
  ])(
    "%s: priced at what plays",
    async (label, make, seconds) => {
      const bytes = make();
      const length = await measureAudio(detectAudioFormat(bytes)!, bytes);
      expect(length.seconds).toBeGreaterThanOrEqual(seconds - 0.1);
    },
    30_000,
  );

  it("prices what it cannot measure at the format's lowest bit rate (a compressed WAV, bytes between MP3 frames, an unknown codec)", async () => {
    const adpcm = wav(10, 8000, 1, 16);
    adpcm.writeUInt16LE(0x0011, 20); // IMA ADPCM: not measured
    const a = await measureAudio("wav", adpcm);
    expect(a.measured).toBe(0);
    expect(a.seconds).toBeCloseTo((adpcm.length * 8) / LOWEST_BITS_PER_SECOND.wav, 3);
    const junk = Buffer.concat([mp3(1, false), Buffer.alloc(10_000, 0x55), mp3(1, false)]);
    const m = await measureAudio("mp3", junk);
    expect(m.unaccounted).toBe(10_000);
    expect(m.seconds).toBeCloseTo(m.measured + (10_000 * 8) / LOWEST_BITS_PER_SECOND.mp3, 3);
    const headerOnly = Buffer.concat([
      Buffer.from("fLaC", "latin1"),
      Buffer.from([0x80, 0, 0, 34]),
      Buffer.alloc(34),
      Buffer.alloc(5000, 0x11),
    ]);
    expect((await measureAudio("flac", headerOnly)).seconds).toBeGreaterThanOrEqual((5000 * 8) / LOWEST_BITS_PER_SECOND.flac);
  });

  it("walks 25 MB without holding the event loop (other work gets turns)", async () => {
    const big = Buffer.alloc(25 * 1024 * 1024, 0x55); // no frame at all: every byte scanned
    const head = mp3(0.1, false);
    head.copy(big);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const length = await measureAudio("mp3", big);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(3);
    expect(length.seconds).toBeGreaterThan(20_000);
  }, 30_000);
});
