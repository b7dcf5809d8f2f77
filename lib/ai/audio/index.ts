import type { AudioFormat } from "./format";
import { measureFlac } from "./flac";
import { measureMatroska } from "./matroska";
import type { Measured } from "./measure";
import { measureMp4 } from "./mp4";
import { measureMpeg } from "./mpeg";
import { measureOgg } from "./ogg";
import { measureWav } from "./wav";

export { AUDIO_EXTENSIONS, AUDIO_MIME, detectAudioFormat, extensionOf, formatForExtension, type AudioFormat } from "./format";

/**
 * How long a recording is, as the provider that decodes it bills it (docs/API-NOTES.md "Pricing"):
 * measured from the data (frames, packets, samples), never from a duration or rate a header states
 * (lib/ai/audio/*.ts, one measurer per format). Whatever the walk cannot account for is priced as
 * audio at the lowest bit rate the format allows, so a file's length is an upper bound of what any
 * decoder can play from it.
 */
export interface AudioLength {
  /** Seconds to price: the measured audio plus the unaccounted bytes at the format's lowest bit rate. */
  seconds: number;
  /** Seconds found in the data. */
  measured: number;
  /** Bytes no frame accounts for. */
  unaccounted: number;
}

/**
 * The lowest bit rate of each format's codecs (bits per second), for bytes that cannot be measured:
 * WAV's compressed formats (G.723.1: 5.3 kbit/s), MP3 (8 kbit/s), Opus and Vorbis in Ogg and WebM
 * (Opus with DTX: under 1 kbit/s of silence), AAC (8 kbit/s HE-AAC v2 at worst, 1 kbit/s here),
 * FLAC (silence compresses to almost nothing).
 */
export const LOWEST_BITS_PER_SECOND: Record<AudioFormat, number> = {
  wav: 5_300,
  mp3: 8_000,
  ogg: 1_000,
  webm: 1_000,
  m4a: 1_000,
  flac: 500,
};

async function measure(format: AudioFormat, bytes: Uint8Array): Promise<Measured | null> {
  switch (format) {
    case "wav":
      return measureWav(bytes);
    case "mp3":
      return measureMpeg(bytes);
    case "flac":
      return measureFlac(bytes);
    case "ogg":
      return measureOgg(bytes);
    case "webm":
      return measureMatroska(bytes);
    case "m4a":
      return measureMp4(bytes);
  }
}

/** The length of a recording to price, measured from its data (a format that cannot be measured: its bytes at the lowest bit rate). */
export async function measureAudio(format: AudioFormat, bytes: Uint8Array): Promise<AudioLength> {
  let m: Measured | null;
  try {
    m = await measure(format, bytes);
  } catch {
    m = null;
  }
  const found = m ?? { seconds: 0, unaccounted: bytes.length };
  const seconds = found.seconds + (found.unaccounted * 8) / LOWEST_BITS_PER_SECOND[format];
  return { seconds, measured: found.seconds, unaccounted: found.unaccounted };
}
