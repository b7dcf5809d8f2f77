import { ascii, MAX_SAMPLE_RATE, u16le, u32le, type Measured } from "./measure";

/** WAVE format tags whose samples are a fixed number of bytes each (PCM, float, A-law, mu-law). */
const FIXED_WIDTH = new Set([0x0001, 0x0003, 0x0006, 0x0007]);

/**
 * WAV: the samples after the `data` chunk's header divided by the frame size the `fmt ` chunk
 * gives (channels x bytes per sample) and its sample rate. Never the byte-rate field, and never the
 * data chunk's declared size: everything from the data to the end of the file counts, since a
 * decoder may read past a size that is too small. Compressed WAVE formats (ADPCM, GSM, ...) are
 * not measured: null (the caller quotes their worst case).
 */
export function measureWav(b: Uint8Array): Measured | null {
  let at = 12;
  let fmt: { tag: number; channels: number; rate: number; bits: number } | null = null;
  let dataStart = -1;
  while (at + 8 <= b.length) {
    const id = ascii(b, at, 4);
    const size = u32le(b, at + 4);
    if (id === "fmt " && at + 24 <= b.length) {
      let tag = u16le(b, at + 8);
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
      if (tag === 0xfffe && size >= 40 && at + 8 + 26 <= b.length) tag = u16le(b, at + 8 + 24);
      fmt = { tag, channels: u16le(b, at + 10), rate: u32le(b, at + 12), bits: u16le(b, at + 22) };
    }
    if (id === "data" && dataStart < 0) {
      dataStart = at + 8;
      if (fmt) break;
    }
    at += 8 + size + (size & 1);
  }
  if (!fmt || dataStart < 0 || !FIXED_WIDTH.has(fmt.tag) || fmt.channels === 0 || fmt.rate === 0 || fmt.bits === 0) return null;
  // Larger claims would shorten the count; no decoder plays them as more audio than this.
  const channels = Math.min(fmt.channels, 8);
  const bytesPerSample = Math.ceil(Math.min(fmt.bits, 32) / 8);
  const rate = Math.min(fmt.rate, MAX_SAMPLE_RATE);
  const frames = Math.ceil(Math.max(0, b.length - dataStart) / (channels * bytesPerSample));
  return { seconds: frames / rate, unaccounted: 0 };
}
