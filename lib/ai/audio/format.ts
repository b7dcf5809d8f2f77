/**
 * Audio formats accepted by speech-to-text (SPEC §4.4): detected from the content's magic bytes AND
 * the file name's extension, which must agree (lib/ai/audio.ts reads their durations).
 */
export type AudioFormat = "webm" | "wav" | "mp3" | "m4a" | "ogg" | "flac";

export const AUDIO_EXTENSIONS: Record<AudioFormat, string[]> = {
  webm: ["webm"],
  wav: ["wav", "wave"],
  mp3: ["mp3", "mpga", "mpeg"],
  m4a: ["m4a", "mp4"],
  ogg: ["ogg", "oga", "opus"],
  flac: ["flac"],
};

export const AUDIO_MIME: Record<AudioFormat, string> = {
  webm: "audio/webm",
  wav: "audio/wav",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  ogg: "audio/ogg",
  flac: "audio/flac",
};

export const ascii = (b: Uint8Array, at: number, len: number) => String.fromCharCode(...b.subarray(at, at + len));

export function id3Size(b: Uint8Array): number {
  if (b.length < 10 || ascii(b, 0, 3) !== "ID3") return 0;
  const size = ((b[6] & 0x7f) << 21) | ((b[7] & 0x7f) << 14) | ((b[8] & 0x7f) << 7) | (b[9] & 0x7f);
  return 10 + size + (b[5] & 0x10 ? 10 : 0);
}

/** Detects the format from the first bytes (at least 12 needed). */
export function detectAudioFormat(b: Uint8Array): AudioFormat | null {
  if (b.length < 4) return null;
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return "webm";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 4) === "WAVE") return "wav";
  if (ascii(b, 0, 4) === "fLaC") return "flac";
  if (ascii(b, 0, 4) === "OggS") return "ogg";
  if (b.length >= 12 && ascii(b, 4, 4) === "ftyp") return "m4a";
  if (ascii(b, 0, 3) === "ID3") return "mp3";
  if (b[0] === 0xff && (b[1] & 0xe0) === 0xe0 && (b[1] & 0x06) !== 0) return "mp3";
  return null;
}

export function extensionOf(filename: string): string {
  const i = filename.lastIndexOf(".");
  return i < 0 ? "" : filename.slice(i + 1).toLowerCase();
}

export function formatForExtension(ext: string): AudioFormat | null {
  for (const [format, exts] of Object.entries(AUDIO_EXTENSIONS)) if (exts.includes(ext)) return format as AudioFormat;
  return null;
}
