/**
 * Opus packet durations from the table-of-contents byte (RFC 6716 §3.1): the configuration gives
 * the frame size, the code how many frames the packet holds. Samples at 48 kHz, as every Opus
 * decoder outputs; at most 120 ms a packet.
 */
const FRAME_SAMPLES = [
  // SILK-only: 10, 20, 40, 60 ms (configurations 0-11)
  480, 960, 1920, 2880, 480, 960, 1920, 2880, 480, 960, 1920, 2880,
  // Hybrid: 10, 20 ms (12-15)
  480, 960, 480, 960,
  // CELT-only: 2.5, 5, 10, 20 ms (16-31)
  120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960,
];

/** Samples (48 kHz) one Opus packet decodes to; 0 for an empty packet (a lost frame is concealed by the decoder at 20 ms: counted as such). */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length === 0) return 960;
  const toc = packet[0];
  const frame = FRAME_SAMPLES[toc >> 3];
  const code = toc & 3;
  const frames = code === 0 ? 1 : code === 3 ? (packet.length > 1 ? packet[1] & 0x3f : 1) : 2;
  return Math.min(5760, frame * Math.max(1, frames));
}
