import { flacFrame } from "./flac";
import { ascii, MAX_SAMPLE_RATE, turnTaker, u32le, type Measured } from "./measure";
import { opusPacketSamples } from "./opus";

/** One logical stream of an Ogg file, as its packets are met. */
interface Stream {
  codec: "opus" | "vorbis" | "flac" | "unknown" | null;
  /** Header packets still to come (not audio). */
  headers: number;
  rate: number;
  /** Vorbis: the long block size (a packet decodes to at most half of it). */
  longBlock: number;
  samples: number;
  /** Bytes of packets of a codec this does not measure. */
  unmeasured: number;
  partial: Uint8Array[];
}

function identify(s: Stream, packet: Uint8Array): void {
  if (ascii(packet, 0, 8) === "OpusHead") {
    s.codec = "opus";
    s.rate = 48_000;
    s.headers = 1; // OpusTags
  } else if (packet[0] === 1 && ascii(packet, 1, 6) === "vorbis" && packet.length >= 29) {
    s.codec = "vorbis";
    s.rate = Math.min(MAX_SAMPLE_RATE, Math.max(1, u32le(packet, 12)));
    s.longBlock = 1 << Math.min(13, packet[28] >> 4);
    s.headers = 2; // comment, setup
  } else if (packet[0] === 0x7f && ascii(packet, 1, 4) === "FLAC" && packet.length >= 13 + 17) {
    s.codec = "flac";
    const info = 13 + 4; // "fLaC" then STREAMINFO's block header
    s.rate = (packet[info + 10] << 12) | (packet[info + 11] << 4) | (packet[info + 12] >> 4);
    s.headers = (packet[7] << 8) | packet[8]; // the count of header packets that follow
  } else s.codec = "unknown";
}

function addPacket(s: Stream, packet: Uint8Array): void {
  if (s.codec === null) return identify(s, packet);
  if (s.headers > 0) {
    s.headers--;
    return;
  }
  switch (s.codec) {
    case "opus":
      s.samples += opusPacketSamples(packet);
      break;
    case "vorbis":
      // An audio packet decodes to at most half the long block (the setup header's modes would say exactly).
      if (packet.length > 0 && (packet[0] & 1) === 0) s.samples += s.longBlock / 2;
      break;
    case "flac": {
      const frame = flacFrame(packet, 0, s.rate);
      if (frame) s.samples += (frame.samples * s.rate) / frame.rate;
      else s.unmeasured += packet.length;
      break;
    }
    default:
      s.unmeasured += packet.length;
  }
}

/**
 * Ogg (Opus, Vorbis, FLAC): every page is walked and its packets counted as a decoder decodes them
 * (Opus: each packet's table of contents; Vorbis: at most half a long block a packet; FLAC: each
 * frame's header); granule positions, which the file states, are never believed. Every logical
 * stream counts. Bytes outside pages and packets of other codecs are unaccounted.
 */
export async function measureOgg(b: Uint8Array): Promise<Measured> {
  const turn = turnTaker();
  const streams = new Map<number, Stream>();
  let unaccounted = 0;
  let at = 0;
  while (at < b.length) {
    if (at + 27 > b.length || ascii(b, at, 4) !== "OggS") {
      unaccounted++;
      at++;
      const pause = turn();
      if (pause) await pause;
      continue;
    }
    const serial = u32le(b, at + 14);
    const segments = b[at + 26];
    const table = at + 27;
    let body = table + segments;
    if (body > b.length) {
      unaccounted += b.length - at;
      break;
    }
    let s = streams.get(serial);
    if (!s) streams.set(serial, (s = { codec: null, headers: 0, rate: 48_000, longBlock: 2048, samples: 0, unmeasured: 0, partial: [] }));
    // Lacing: a segment shorter than 255 ends a packet; a packet may continue on the next page.
    let start = body;
    for (let i = 0; i < segments; i++) {
      const len = b[table + i];
      body += len;
      if (len < 255) {
        const piece = b.subarray(start, Math.min(body, b.length));
        const packet = s.partial.length ? Buffer.concat([...s.partial, piece]) : piece;
        s.partial = [];
        addPacket(s, packet);
        start = body;
      }
    }
    if (start < body) s.partial.push(b.subarray(start, Math.min(body, b.length)));
    at = body;
    const pause = turn();
    if (pause) await pause;
  }
  let seconds = 0;
  for (const s of streams.values()) {
    seconds += s.samples / (s.rate || 48_000);
    unaccounted += s.unmeasured + s.partial.reduce((n, p) => n + p.length, 0);
  }
  return { seconds, unaccounted };
}
