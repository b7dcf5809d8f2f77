import type { ImageTokenRule } from "../catalog/model-catalog";

/**
 * What an input image costs a chat model, in prompt tokens, from the image's real dimensions (read
 * from the data URL's header: PNG, JPEG, GIF, WebP) and the vendor's published rule. The decoder the
 * vendor runs reads the same header, so the size here is the size it bills.
 *
 *   openai-tiles    gpt-4o, gpt-4.1: fit within 2048 x 2048, shortest side scaled to at most 768,
 *                   then `base` + `perTile` per 512-px tile (gpt-4o: 85 + 170; gpt-4o-mini: 2,833 + 5,667)
 *   openai-patches  gpt-4.1-mini: 32-px patches, at most `maxPatches` (scaled down to fit), times `multiplier`
 *   anthropic       Claude: longest edge scaled to at most 1,568 px, then width x height / 750, at most 1,600
 *   gemini-tiles    Gemini: 258 when both sides are at most 384 px, else 258 per 768-px tile (3072 x 3072: 16 tiles)
 *   fixed           a model added with AI_MODELS: `tokens` per image, whatever its size
 */

export interface ImageSize {
  width: number;
  height: number;
}

/** The bytes of a base64 data URL from `start`, decoding only what is asked for. */
function base64Reader(dataUrl: string): { at(start: number, length: number): Uint8Array; size: number } | null {
  const comma = dataUrl.indexOf(",");
  if (comma < 0 || !/;base64$/i.test(dataUrl.slice(0, comma))) return null;
  const body = dataUrl.slice(comma + 1);
  const size = Math.floor((body.replace(/=+$/, "").length * 3) / 4);
  return {
    size,
    at(start: number, length: number) {
      const from = Math.floor(start / 3) * 4;
      const to = Math.ceil((start + length) / 3) * 4;
      const bytes = Buffer.from(body.slice(from, to), "base64");
      const skip = start - (from / 4) * 3;
      return bytes.subarray(skip, skip + length);
    },
  };
}

const be16 = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
const be32 = (b: Uint8Array, i: number) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
const le16 = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const le24 = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const ascii = (b: Uint8Array, i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));

/** Width and height of a PNG, JPEG, GIF or WebP image from its data URL's header; null when unreadable. */
export function imageSizeOf(dataUrl: string): ImageSize | null {
  const r = base64Reader(dataUrl);
  if (!r || r.size < 16) return null;
  const head = r.at(0, Math.min(r.size, 64));
  const ok = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : null);
  // PNG: IHDR is the first chunk.
  if (head[0] === 0x89 && ascii(head, 1, 3) === "PNG" && head.length >= 24 && ascii(head, 12, 4) === "IHDR")
    return ok(be32(head, 16), be32(head, 20));
  if (ascii(head, 0, 4) === "GIF8" && head.length >= 10) return ok(le16(head, 6), le16(head, 8));
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 4) === "WEBP" && head.length >= 30) {
    const kind = ascii(head, 12, 4);
    if (kind === "VP8 ") return ok(le16(head, 26) & 0x3fff, le16(head, 28) & 0x3fff);
    if (kind === "VP8L") {
      const bits = head[21] | (head[22] << 8) | (head[23] << 16) | (head[24] << 24);
      return ok((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
    }
    if (kind === "VP8X") return ok(le24(head, 24) + 1, le24(head, 27) + 1);
    return null;
  }
  if (head[0] === 0xff && head[1] === 0xd8) return jpegSize(r);
  return null;
}

/** JPEG: walk the segments to the first start-of-frame marker (SOF0-SOF15 but DHT, JPG, DAC). */
function jpegSize(r: { at(start: number, length: number): Uint8Array; size: number }): ImageSize | null {
  let at = 2;
  for (let guard = 0; guard < 10_000 && at + 9 <= r.size; guard++) {
    const m = r.at(at, 9);
    if (m[0] !== 0xff) return null;
    const marker = m[1];
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = be16(m, 5);
      const width = be16(m, 7);
      return width > 0 && height > 0 ? { width, height } : null;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    at += 2 + be16(m, 2);
  }
  return null;
}

/** Prompt tokens of one image of this size under a vendor rule. */
export function imageTokens(rule: ImageTokenRule, size: ImageSize): number {
  let { width: w, height: h } = size;
  switch (rule.rule) {
    case "fixed":
      return rule.tokens;
    case "openai-tiles": {
      if (w > 2048 || h > 2048) {
        const s = 2048 / Math.max(w, h);
        w *= s;
        h *= s;
      }
      if (Math.min(w, h) > 768) {
        const s = 768 / Math.min(w, h);
        w *= s;
        h *= s;
      }
      return rule.base + rule.perTile * Math.ceil(w / 512) * Math.ceil(h / 512);
    }
    case "openai-patches": {
      let patches = Math.ceil(w / 32) * Math.ceil(h / 32);
      if (patches > rule.maxPatches) {
        // Scaled down to fit the patch budget (OpenAI's rule), which is never more than the budget.
        const s = Math.sqrt((rule.maxPatches * 32 * 32) / (w * h));
        patches = Math.min(rule.maxPatches, Math.ceil((w * s) / 32) * Math.ceil((h * s) / 32));
      }
      return Math.ceil(patches * rule.multiplier);
    }
    case "anthropic": {
      const longest = Math.max(w, h);
      if (longest > 1568) {
        w = (w * 1568) / longest;
        h = (h * 1568) / longest;
      }
      return Math.min(1600, Math.ceil((w * h) / 750));
    }
    case "gemini-tiles":
      if (w <= 384 && h <= 384) return rule.perTile;
      return rule.perTile * Math.ceil(w / 768) * Math.ceil(h / 768);
  }
}
