import { createHash } from "node:crypto";

/**
 * An embedding without a provider (offline): each word of the text hashed to a dimension and a sign,
 * summed and scaled to unit length. Deterministic, and texts sharing words point the same way, so a
 * program built against it behaves sensibly before a provider is configured; not a semantic model.
 */
export function offlineEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [text];
  for (const word of words) {
    const h = createHash("sha256").update(word).digest();
    const index = h.readUInt32LE(0) % dimensions;
    vector[index] += h[4] & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}
