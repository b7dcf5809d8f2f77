/**
 * The upload allowlist. The declared type (query `filetype`) must be one of these (aliases are
 * normalised), and the content's first bytes must match it: binary types by their magic bytes,
 * text-like types by being valid UTF-8 without NUL bytes and without any binary signature.
 */
export const BINARY_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "application/pdf",
  "audio/wav",
  "audio/mpeg",
  "audio/ogg",
  "audio/webm",
  "audio/flac",
  "audio/mp4",
] as const;

export const TEXT_TYPES = ["text/plain", "text/markdown", "text/csv", "application/json"] as const;

export type BinaryType = (typeof BINARY_TYPES)[number];
export type TextType = (typeof TEXT_TYPES)[number];
export type AllowedType = BinaryType | TextType;

export const ALLOWED_TYPES: readonly AllowedType[] = [...BINARY_TYPES, ...TEXT_TYPES];

const ALIASES: Record<string, AllowedType> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/mp3": "audio/mpeg",
  "audio/x-flac": "audio/flac",
  "audio/x-m4a": "audio/mp4",
  "audio/m4a": "audio/mp4",
  "text/x-markdown": "text/markdown",
};

/** The canonical allowed type for a declared MIME type (parameters and case ignored), or null. */
export function normalizeDeclaredType(declared: string): AllowedType | null {
  const base = declared.split(";")[0].trim().toLowerCase();
  if ((ALLOWED_TYPES as readonly string[]).includes(base)) return base as AllowedType;
  return ALIASES[base] ?? null;
}

export function isTextType(type: AllowedType): type is TextType {
  return (TEXT_TYPES as readonly string[]).includes(type);
}

/** How many leading bytes the sniffer looks at. */
export const SNIFF_BYTES = 4100;

const ascii = (buf: Buffer, offset: number, text: string) =>
  buf.length >= offset + text.length && buf.toString("latin1", offset, offset + text.length) === text;

/** The binary type whose signature starts `head`, or null (text, or something not allowed). */
export function detectBinaryType(head: Buffer): BinaryType | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (ascii(head, 0, "GIF87a") || ascii(head, 0, "GIF89a")) return "image/gif";
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WEBP")) return "image/webp";
  if (ascii(head, 0, "RIFF") && ascii(head, 8, "WAVE")) return "audio/wav";
  if (ascii(head, 0, "%PDF-")) return "application/pdf";
  if (ascii(head, 0, "OggS")) return "audio/ogg";
  if (ascii(head, 0, "fLaC")) return "audio/flac";
  if (ascii(head, 4, "ftyp")) return "audio/mp4";
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) {
    return head.subarray(0, 64).includes("webm", 0, "latin1") ? "audio/webm" : null;
  }
  if (ascii(head, 0, "ID3")) {
    // ID3v2 tag: a FLAC stream may follow it; otherwise it is MP3.
    if (head.length >= 10) {
      const size = ((head[6] & 0x7f) << 21) | ((head[7] & 0x7f) << 14) | ((head[8] & 0x7f) << 7) | (head[9] & 0x7f);
      if (ascii(head, 10 + size, "fLaC")) return "audio/flac";
    }
    return "audio/mpeg";
  }
  // MPEG audio frame sync: 11 set bits, version not reserved (01), layer not reserved (00).
  if (head.length >= 2 && head[0] === 0xff && (head[1] & 0xe0) === 0xe0 && ((head[1] >> 3) & 3) !== 1 && ((head[1] >> 1) & 3) !== 0) {
    return "audio/mpeg";
  }
  return null;
}
