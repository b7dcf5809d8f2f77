import { ascii, MAX_SAMPLE_RATE, u16be, u32be, type Measured } from "./measure";

/** MPEG-4 sampling frequency indexes (ISO 14496-3 §1.6.3.4). */
const AAC_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const CONTAINERS = new Set(["moov", "trak", "mdia", "minf", "stbl", "moof", "traf", "mvex"]);

interface TrackInfo {
  id: number;
  audio: boolean;
  /** Samples one coded sample (access unit) decodes to; 0 when the codec is not measured. */
  frameSamples: number;
  rate: number;
  sampleCount: number;
  /** stts: the sum of the sample durations, and the timescale (mdhd) they are in. */
  sttsTotal: number;
  timescale: number;
}

interface Box {
  type: string;
  start: number;
  end: number;
}

function* boxes(b: Uint8Array, from: number, to: number): Generator<Box> {
  let at = from;
  while (at + 8 <= to) {
    let size = u32be(b, at);
    let header = 8;
    if (size === 1 && at + 16 <= to) {
      size = u32be(b, at + 8) * 2 ** 32 + u32be(b, at + 12);
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header) return;
    yield { type: ascii(b, at + 4, 4), start: at + header, end: Math.min(to, at + size) };
    at += size;
  }
}

/** The core sampling rate of an AudioSpecificConfig (the rate its 1,024-sample frames are coded at). */
function ascRate(asc: Uint8Array): number | null {
  if (asc.length < 2) return null;
  // The object type (5 bits, or 11 when escaped), then the frequency index.
  let bit = asc[0] >> 3 === 31 ? 11 : 5;
  const read = (n: number) => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) v = (v << 1) | ((asc[bit >> 3] >> (7 - (bit & 7))) & 1);
    return v;
  };
  const index = read(4);
  return index === 15 ? read(24) || null : (AAC_RATES[index] ?? null);
}

/** The AudioSpecificConfig inside an esds box's descriptors (tag 3, then 4, then 5); and the object type. */
function esdsConfig(b: Uint8Array, start: number, end: number): { objectType: number; asc: Uint8Array | null } {
  let at = start + 4; // full box
  const descriptor = () => {
    const tag = b[at++];
    let len = 0;
    for (let i = 0; i < 4; i++) {
      const x = b[at++];
      len = (len << 7) | (x & 0x7f);
      if (!(x & 0x80)) break;
    }
    return { tag, len };
  };
  let objectType = 0x40;
  let asc: Uint8Array | null = null;
  while (at < end) {
    const d = descriptor();
    if (d.tag === 3) {
      const flags = b[at + 2];
      at += 3 + (flags & 0x80 ? 2 : 0) + (flags & 0x40 ? 1 + b[at + 3] : 0) + (flags & 0x20 ? 2 : 0);
    } else if (d.tag === 4) {
      objectType = b[at];
      at += 13;
    } else if (d.tag === 5) {
      asc = b.subarray(at, Math.min(end, at + d.len));
      break;
    } else at += d.len;
  }
  return { objectType, asc };
}

function readSampleEntry(b: Uint8Array, entry: Box, t: TrackInfo): void {
  // SampleEntry (8) + AudioSampleEntry: version(2) revision(2) vendor(4) channels(2) size(2) id(2) packet(2) rate(4: 16.16).
  const version = u16be(b, entry.start + 8);
  const entryRate = u32be(b, entry.start + 24) >>> 16;
  let rates = entryRate > 0 ? [entryRate] : [];
  const children = entry.start + 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
  if (entry.type === "mp4a") {
    t.frameSamples = 1024;
    for (const child of boxes(b, children, entry.end)) {
      if (child.type !== "esds") continue;
      const { objectType, asc } = esdsConfig(b, child.start, child.end);
      if (objectType === 0x69 || objectType === 0x6b) t.frameSamples = 1152;
      const core = asc ? ascRate(asc) : null;
      if (core) rates = [...rates, core];
    }
  } else if (entry.type === "alac") {
    t.frameSamples = 4096;
    for (const child of boxes(b, children, entry.end))
      if (child.type === "alac" && child.end - child.start >= 8) t.frameSamples = Math.max(1, u32be(b, child.start + 4));
  } else if (entry.type === "ac-3" || entry.type === "ec-3") t.frameSamples = 1536;
  else t.frameSamples = 0;
  // The lowest rate offered counts (HE-AAC states its doubled output rate beside its core rate).
  t.rate = Math.min(MAX_SAMPLE_RATE, ...(rates.length ? rates : [8000]));
}

/**
 * MP4 / M4A: the audio tracks' sample tables are read (stsz's sample count, or each fragment's trun
 * counts) and every sample counted as the frames its codec decodes to (AAC 1,024, MP3 1,152, ALAC
 * its frame length, AC-3 1,536) at the codec's own rate; stts's durations count when they say more.
 * The movie and media headers' durations are never believed. Tracks of other codecs leave the media
 * data unaccounted.
 */
export function measureMp4(b: Uint8Array): Measured {
  const tracks = new Map<number, TrackInfo>();
  const fragments = new Map<number, number>();
  let mediaBytes = 0;
  let current: TrackInfo | null = null;
  let fragmentTrack = 0;
  const walk = (from: number, to: number) => {
    for (const box of boxes(b, from, to)) {
      if (box.type === "trak") {
        current = { id: 0, audio: false, frameSamples: 0, rate: 8000, sampleCount: 0, sttsTotal: 0, timescale: 0 };
        walk(box.start, box.end);
        if (current.id) tracks.set(current.id, current);
        current = null;
        continue;
      }
      if (CONTAINERS.has(box.type)) {
        walk(box.start, box.end);
        continue;
      }
      const t: TrackInfo | null = current;
      const v = b[box.start];
      switch (box.type) {
        case "mdat":
          mediaBytes += box.end - box.start;
          break;
        case "tkhd":
          if (t) t.id = u32be(b, box.start + (v === 1 ? 20 : 12));
          break;
        case "mdhd":
          if (t) t.timescale = u32be(b, box.start + (v === 1 ? 20 : 12));
          break;
        case "hdlr":
          if (t) t.audio = ascii(b, box.start + 8, 4) === "soun";
          break;
        case "stsd":
          if (t) for (const entry of boxes(b, box.start + 8, box.end)) readSampleEntry(b, entry, t);
          break;
        case "stsz":
          if (t) t.sampleCount = u32be(b, box.start + 8);
          break;
        case "stts":
          if (t) {
            const n = u32be(b, box.start + 4);
            for (let i = 0, at = box.start + 8; i < n && at + 8 <= box.end; i++, at += 8) t.sttsTotal += u32be(b, at) * u32be(b, at + 4);
          }
          break;
        case "tfhd":
          fragmentTrack = u32be(b, box.start + 4);
          break;
        case "trun":
          fragments.set(fragmentTrack, (fragments.get(fragmentTrack) ?? 0) + u32be(b, box.start + 4));
          break;
      }
    }
  };
  walk(0, b.length);
  let seconds = 0;
  let unmeasured = false;
  let audio = 0;
  for (const t of tracks.values()) {
    if (!t.audio) continue;
    audio++;
    if (!t.frameSamples) {
      unmeasured = true;
      continue;
    }
    const samples = t.sampleCount + (fragments.get(t.id) ?? 0);
    seconds += Math.max((samples * t.frameSamples) / t.rate, t.timescale ? t.sttsTotal / t.timescale : 0);
  }
  // No audio track read, or one of a codec not measured: the media data is priced as audio.
  const unaccounted = unmeasured || audio === 0 ? Math.max(mediaBytes, audio === 0 ? b.length : 0) : 0;
  return { seconds, unaccounted };
}
