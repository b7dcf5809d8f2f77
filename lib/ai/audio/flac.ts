import { ascii, MAX_SAMPLE_RATE, turnTaker, u16be, type Measured } from "./measure";

const RATE_CODES = [0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000];

/** CRC-8 (polynomial 0x07) of a FLAC frame header. */
function crc8(b: Uint8Array, from: number, to: number): number {
  let c = 0;
  for (let i = from; i < to; i++) {
    c ^= b[i];
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
  }
  return c;
}

/**
 * A FLAC frame header at `at` (RFC 9639 §9.1), checked down to its CRC-8: the samples its block
 * holds, the sample rate, and the header's length; null when there is none. `streamRate` is the
 * STREAMINFO rate, for frames that refer to it.
 */
export function flacFrame(b: Uint8Array, at: number, streamRate: number): { samples: number; rate: number; headerLength: number } | null {
  if (at + 6 > b.length || b[at] !== 0xff || (b[at + 1] & 0xfe) !== 0xf8) return null;
  const blockCode = b[at + 2] >> 4;
  const rateCode = b[at + 2] & 0x0f;
  const channels = b[at + 3] >> 4;
  const sizeCode = (b[at + 3] >> 1) & 7;
  if (blockCode === 0 || rateCode === 15 || channels > 10 || sizeCode === 3 || (b[at + 3] & 1) !== 0) return null;
  // The frame or sample number, UTF-8 style: 1 to 7 bytes.
  let i = at + 4;
  const lead = b[i];
  const extra =
    lead < 0x80 ? 0 : lead >= 0xfe ? 6 : lead >= 0xfc ? 5 : lead >= 0xf8 ? 4 : lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : -1;
  if (extra < 0) return null;
  i += 1 + extra;
  let samples: number;
  if (blockCode === 1) samples = 192;
  else if (blockCode <= 5) samples = 576 << (blockCode - 2);
  else if (blockCode === 6) samples = (b[i++] ?? 0) + 1;
  else if (blockCode === 7) {
    samples = u16be(b, i) + 1;
    i += 2;
  } else samples = 256 << (blockCode - 8);
  let rate: number;
  if (rateCode === 0) rate = streamRate;
  else if (rateCode <= 11) rate = RATE_CODES[rateCode];
  else if (rateCode === 12) rate = (b[i++] ?? 0) * 1000;
  else {
    rate = u16be(b, i) * (rateCode === 14 ? 10 : 1);
    i += 2;
  }
  if (i >= b.length || !rate || crc8(b, at, i) !== b[i]) return null;
  return { samples, rate: Math.min(rate, MAX_SAMPLE_RATE), headerLength: i + 1 - at };
}

/**
 * FLAC: every frame header (sync code, valid fields, CRC-8) is found and its block counted, as a
 * decoder decodes it; STREAMINFO's total sample count is never believed. A stray match inside
 * compressed data can only add a block. Null when the metadata blocks do not parse.
 */
export async function measureFlac(b: Uint8Array): Promise<Measured | null> {
  if (ascii(b, 0, 4) !== "fLaC") return null;
  let at = 4;
  let streamRate = 0;
  for (;;) {
    if (at + 4 > b.length) return null;
    const last = b[at] & 0x80;
    const type = b[at] & 0x7f;
    const length = (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3];
    if (type === 0 && at + 4 + 13 <= b.length) streamRate = (b[at + 4 + 10] << 12) | (b[at + 4 + 11] << 4) | (b[at + 4 + 12] >> 4);
    at += 4 + length;
    if (last) break;
  }
  const { seconds } = await countFlacFrames(b, at, streamRate);
  // No frame at all: the bytes are priced as if they were audio.
  return { seconds, unaccounted: seconds === 0 ? Math.max(0, b.length - at) : 0 };
}

/** Seconds of the FLAC frames found in b[from..]. */
export async function countFlacFrames(b: Uint8Array, from: number, streamRate: number): Promise<{ seconds: number }> {
  const turn = turnTaker();
  let seconds = 0;
  for (let at = from; at + 6 <= b.length;) {
    const frame = b[at] === 0xff ? flacFrame(b, at, streamRate) : null;
    if (frame) {
      seconds += frame.samples / frame.rate;
      at += frame.headerLength;
    } else at++;
    const pause = turn();
    if (pause) await pause;
  }
  return { seconds };
}
