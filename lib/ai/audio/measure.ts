/**
 * What every audio measurer shares: the result type, little readers, and a way to give other
 * requests a turn while a 25 MB file is walked.
 *
 * A measurement counts what a decoder would decode (frames, packets, samples), never a duration a
 * header declares. Bytes the walk cannot account for are priced as audio at the format's lowest
 * bit rate (`unaccounted`), so anything a decoder might still play is paid for.
 */
export interface Measured {
  /** Seconds of audio found in the data. */
  seconds: number;
  /** Bytes no frame or packet accounts for (priced at the format's lowest bit rate). */
  unaccounted: number;
}

export const ascii = (b: Uint8Array, at: number, len: number) => String.fromCharCode(...b.subarray(at, Math.min(b.length, at + len)));
export const u16be = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
export const u32be = (b: Uint8Array, i: number) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
export const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
export const u32le = (b: Uint8Array, i: number) => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) + ((b[i + 3] << 24) >>> 0);

/** The highest sample rate believed (a higher claimed rate would shorten the count; decoders cap far lower). */
export const MAX_SAMPLE_RATE = 192_000;

/** Steps between turns of the event loop while walking a file. */
const STEPS_PER_TURN = 1 << 18;

/** A counter that lets other work run every STEPS_PER_TURN steps (await it in a walking loop). */
export function turnTaker(): () => Promise<void> | null {
  let steps = 0;
  return () => (++steps % STEPS_PER_TURN === 0 ? new Promise<void>((resolve) => setImmediate(resolve)) : null);
}
