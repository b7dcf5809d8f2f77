import { ascii, turnTaker, type Measured } from "./measure";

const BITRATES: Record<string, number[]> = {
  // version group (1: MPEG-1, 2: MPEG-2/2.5) - layer: kbps by index (0: free format, 15: invalid)
  "1-1": [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  "1-2": [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  "1-3": [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  "2-1": [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  "2-2": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  "2-3": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** An MPEG audio frame header at `at`: its length in bytes and the seconds it plays; null when not one. */
export function mpegFrame(b: Uint8Array, at: number): { length: number; seconds: number } | null {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1] & 0xe0) !== 0xe0) return null;
  const version = (b[at + 1] >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
  const layerBits = (b[at + 1] >> 1) & 3; // 3: layer I, 2: II, 1: III, 0: reserved
  const bitrateIndex = b[at + 2] >> 4;
  const rateIndex = (b[at + 2] >> 2) & 3;
  if (version === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const layer = 4 - layerBits;
  const kbps = BITRATES[`${version === 3 ? 1 : 2}-${layer}`][bitrateIndex];
  const rate = RATES[version][rateIndex];
  const padding = (b[at + 2] >> 1) & 1;
  const samples = layer === 1 ? 384 : layer === 2 || version === 3 ? 1152 : 576;
  const length =
    layer === 1 ? (Math.floor((12_000 * kbps) / rate) + padding) * 4 : Math.floor(((samples / 8) * kbps * 1000) / rate) + padding;
  return { length, seconds: samples / rate };
}

/** The size of an ID3v2 tag at the start (decoders skip it whole), 0 when there is none. */
export function id3v2Size(b: Uint8Array): number {
  if (b.length < 10 || ascii(b, 0, 3) !== "ID3") return 0;
  const size = ((b[6] & 0x7f) << 21) | ((b[7] & 0x7f) << 14) | ((b[8] & 0x7f) << 7) | (b[9] & 0x7f);
  return 10 + size + (b[5] & 0x10 ? 10 : 0);
}

/**
 * MP3 (and MPEG layer I/II): every frame is walked and counted by its own header, as a decoder
 * plays it; the Xing/Info frame count and the first frame's bit rate are never believed. Bytes
 * between frames (a decoder resynchronises through them) are unaccounted, except a leading ID3v2
 * tag and a trailing ID3v1 tag.
 */
export async function measureMpeg(b: Uint8Array): Promise<Measured> {
  const turn = turnTaker();
  let at = id3v2Size(b);
  let end = b.length;
  if (end - at >= 128 && ascii(b, end - 128, 3) === "TAG") end -= 128;
  let seconds = 0;
  let unaccounted = 0;
  while (at < end) {
    const frame = mpegFrame(b, at);
    if (frame && frame.length >= 4) {
      seconds += frame.seconds;
      at += frame.length;
    } else {
      unaccounted++;
      at++;
    }
    const pause = turn();
    if (pause) await pause;
  }
  return { seconds, unaccounted };
}
