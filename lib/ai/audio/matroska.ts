import { flacFrame } from "./flac";
import { ascii, MAX_SAMPLE_RATE, turnTaker, type Measured } from "./measure";
import { mpegFrame } from "./mpeg";
import { opusPacketSamples } from "./opus";

/** An EBML variable-length integer at `at` (an ID keeps its marker bit; a size loses it). */
function vint(b: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number; unknown: boolean } | null {
  const first = b[at];
  if (first === undefined || first === 0) return null;
  let length = 1;
  while (!(first & (0x80 >> (length - 1)))) length++;
  if (at + length > b.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = (first & (0xff >> length)) === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i];
    if (b[at + i] !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const AUDIO = 0xe1;
const BLOCK_GROUP = 0xa0;
/** Elements walked into: their children are read in place (sizes may be unknown, as a live recorder writes them). */
const MASTERS = new Set([SEGMENT, CLUSTER, TRACKS, TRACK_ENTRY, AUDIO, BLOCK_GROUP]);
/** TrackNumber, TrackType, Channels, BitDepth, CodecID, CodecPrivate, SamplingFrequency. */
const TRACK_FIELDS = new Set([0xd7, 0x83, 0x9f, 0x6264, 0x86, 0x63a2, 0xb5]);

interface Track {
  codec: string;
  rate: number;
  channels: number;
  bitDepth: number;
  /** Vorbis: the long block size, from CodecPrivate. */
  longBlock: number;
}

/** Samples of one frame of a track's codec at its rate; null when the codec is not measured. */
function frameSeconds(t: Track | undefined, frame: Uint8Array): number | null {
  if (!t) return null;
  if (t.codec === "A_OPUS") return opusPacketSamples(frame) / 48_000;
  if (t.codec === "A_VORBIS") return t.longBlock / 2 / t.rate;
  if (t.codec === "A_FLAC") {
    const f = flacFrame(frame, 0, t.rate);
    return f ? f.samples / f.rate : null;
  }
  if (t.codec.startsWith("A_PCM/")) return frame.length / (Math.min(t.channels, 8) * Math.ceil(Math.min(t.bitDepth, 32) / 8)) / t.rate;
  if (t.codec.startsWith("A_AAC")) return 1024 / t.rate;
  if (t.codec === "A_MPEG/L3" || t.codec === "A_MPEG/L2") {
    let seconds = 0;
    for (let at = 0; at < frame.length;) {
      const f = mpegFrame(frame, at);
      if (!f || f.length < 4) return seconds > 0 ? seconds : null;
      seconds += f.seconds;
      at += f.length;
    }
    return seconds;
  }
  return null;
}

/** The frames of a (Simple)Block: lacing none, Xiph, fixed-size or EBML (Matroska §10.3). */
function blockFrames(b: Uint8Array, start: number, end: number): { track: number; frames: Uint8Array[] } | null {
  const track = vint(b, start, false);
  if (!track) return null;
  let at = start + track.length + 2;
  const flags = b[at++];
  const lacing = (flags >> 1) & 3;
  if (lacing === 0) return { track: track.value, frames: [b.subarray(at, end)] };
  const count = b[at++] + 1;
  const sizes: number[] = [];
  if (lacing === 1) {
    for (let i = 0; i < count - 1; i++) {
      let size = 0;
      while (at < end && b[at] === 255) size += b[at++];
      size += b[at++] ?? 0;
      sizes.push(size);
    }
  } else if (lacing === 3) {
    const first = vint(b, at, false);
    if (!first) return null;
    at += first.length;
    sizes.push(first.value);
    for (let i = 1; i < count - 1; i++) {
      const diff = vint(b, at, false);
      if (!diff) return null;
      at += diff.length;
      // Signed: the value minus half its range.
      sizes.push(sizes[i - 1] + diff.value - (2 ** (7 * diff.length - 1) - 1));
    }
  } else {
    const each = Math.floor((end - at) / count);
    for (let i = 0; i < count - 1; i++) sizes.push(each);
  }
  const frames: Uint8Array[] = [];
  for (const size of sizes) {
    if (size < 0 || at + size > end) return null;
    frames.push(b.subarray(at, at + size));
    at += size;
  }
  frames.push(b.subarray(at, end));
  return { track: track.value, frames };
}

/** Vorbis CodecPrivate: Xiph-laced identification, comment and setup headers; the long block size from the first. */
function vorbisLongBlock(priv: Uint8Array): number {
  let at = 1;
  let size = 0;
  while (at < priv.length && priv[at] === 255) size += priv[at++];
  size += priv[at++] ?? 0;
  while (at < priv.length && priv[at] === 255) at++;
  at++;
  const ident = priv.subarray(at, at + size);
  return ident[0] === 1 && ascii(ident, 1, 6) === "vorbis" && ident.length >= 29 ? 1 << Math.min(13, ident[28] >> 4) : 8192;
}

/**
 * WebM / Matroska: the EBML tree is walked (clusters of unknown size included, as browsers record
 * them) and every audio frame of every block counted by its codec (Opus: its table of contents;
 * Vorbis: at most half a long block; FLAC, PCM, AAC, MP3 by their frames). The Segment's Duration
 * and the blocks' timecodes, which the file states, are never believed. Frames of other codecs and
 * bytes the walk cannot place are unaccounted.
 */
export async function measureMatroska(b: Uint8Array): Promise<Measured> {
  const turn = turnTaker();
  const tracks = new Map<number, Track>();
  // Video and subtitle tracks: a speech decoder reads none of their blocks.
  const ignored = new Set<number>();
  let entry: Partial<Track> & { number?: number; type?: number; priv?: Uint8Array } = {};
  let seconds = 0;
  let unaccounted = 0;
  let at = 0;
  while (at < b.length) {
    const id = vint(b, at, true);
    const size = id ? vint(b, at + id.length, false) : null;
    if (!id || !size) {
      unaccounted += b.length - at;
      break;
    }
    const start = at + id.length + size.length;
    const end = size.unknown ? b.length : Math.min(b.length, start + size.value);
    if (id.value === TRACK_ENTRY) entry = {};
    if (MASTERS.has(id.value)) {
      at = start;
      continue;
    }
    if (size.unknown) {
      unaccounted += b.length - at;
      break;
    }
    const body = b.subarray(start, end);
    switch (id.value) {
      case 0xd7:
      case 0x83:
      case 0x9f:
      case 0x6264: {
        let n = 0;
        for (const x of body) n = n * 256 + x;
        if (id.value === 0xd7) entry.number = n;
        else if (id.value === 0x83) entry.type = n;
        else if (id.value === 0x9f) entry.channels = n;
        else entry.bitDepth = n;
        break;
      }
      case 0x86:
        entry.codec = ascii(body, 0, body.length);
        break;
      case 0x63a2:
        entry.priv = body;
        break;
      case 0xb5: {
        const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
        entry.rate = body.length === 4 ? v.getFloat32(0) : body.length === 8 ? v.getFloat64(0) : 0;
        break;
      }
      case 0xa3:
      case 0xa1: {
        const block = blockFrames(b, start, end);
        if (block && ignored.has(block.track)) break;
        const t = block ? tracks.get(block.track) : undefined;
        for (const frame of block?.frames ?? [body]) {
          const s = frameSeconds(t, frame);
          if (s === null) unaccounted += frame.length;
          else seconds += s;
        }
        break;
      }
    }
    // A TrackEntry's fields come in any order: the track is recorded again as each one is read.
    if (TRACK_FIELDS.has(id.value) && entry.number !== undefined && entry.type !== undefined && entry.type !== 2) {
      tracks.delete(entry.number);
      ignored.add(entry.number);
    } else if (TRACK_FIELDS.has(id.value) && entry.number !== undefined) {
      ignored.delete(entry.number);
      const codec = entry.codec ?? "";
      tracks.set(entry.number, {
        codec,
        rate: Math.min(MAX_SAMPLE_RATE, entry.rate && entry.rate > 0 ? entry.rate : codec === "A_OPUS" ? 48_000 : 8_000),
        channels: Math.max(1, entry.channels ?? 1),
        bitDepth: Math.max(8, entry.bitDepth ?? 16),
        longBlock: codec === "A_VORBIS" && entry.priv ? vorbisLongBlock(entry.priv) : 8192,
      });
    }
    at = end;
    const pause = turn();
    if (pause) await pause;
  }
  return { seconds, unaccounted };
}
