import { ascii, id3Size, type AudioFormat } from "./audio-format";

export { AUDIO_EXTENSIONS, AUDIO_MIME, detectAudioFormat, extensionOf, formatForExtension, type AudioFormat } from "./audio-format";

/**
 * How long a recording is, read from each format's own duration field (exact for WAV, FLAC, OGG, M4A
 * and WebM with a Duration element; MP3 from the Xing/Info frame count or, for CBR, from the
 * bitrate), and the least it can be from its size (the price of speech to text is quoted from it).
 */
export interface AudioDuration {
  seconds: number | null;
  /** "exact" from a header field, "estimate" from bitrate, or null when unknown. */
  how: "exact" | "estimate" | null;
}

const unknown: AudioDuration = { seconds: null, how: null };
const exact = (s: number): AudioDuration => (Number.isFinite(s) && s >= 0 ? { seconds: s, how: "exact" } : unknown);

function wavDuration(b: Uint8Array): AudioDuration {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let at = 12;
  let byteRate = 0;
  while (at + 8 <= b.length) {
    const id = ascii(b, at, 4);
    const size = v.getUint32(at + 4, true);
    if (id === "fmt " && at + 20 <= b.length) byteRate = v.getUint32(at + 16, true);
    if (id === "data") {
      const available = b.length - (at + 8);
      const dataSize = size === 0xffffffff || size > available ? available : size;
      return byteRate > 0 ? exact(dataSize / byteRate) : unknown;
    }
    at += 8 + size + (size & 1);
  }
  return unknown;
}

function flacDuration(b: Uint8Array): AudioDuration {
  // fLaC, then the STREAMINFO block header (4 bytes), then 34 bytes of STREAMINFO.
  if (b.length < 8 + 18 || (b[4] & 0x7f) !== 0) return unknown;
  const s = 8;
  const sampleRate = (b[s + 10] << 12) | (b[s + 11] << 4) | (b[s + 12] >> 4);
  const total = (b[s + 13] & 0x0f) * 2 ** 32 + ((b[s + 14] << 24) >>> 0) + (b[s + 15] << 16) + (b[s + 16] << 8) + b[s + 17];
  return sampleRate > 0 && total > 0 ? exact(total / sampleRate) : unknown;
}

function oggDuration(b: Uint8Array): AudioDuration {
  let rate = 0;
  let preSkip = 0;
  const head = ascii(b, 0, Math.min(b.length, 200));
  const opus = head.indexOf("OpusHead");
  const vorbis = head.indexOf("\u0001vorbis");
  if (opus >= 0 && opus + 12 <= b.length) {
    rate = 48000;
    preSkip = b[opus + 10] | (b[opus + 11] << 8);
  } else if (vorbis >= 0 && vorbis + 16 <= b.length) {
    rate = new DataView(b.buffer, b.byteOffset).getUint32(vorbis + 12, true);
  } else {
    const flac = head.indexOf("fLaC");
    if (flac >= 0) {
      const s = flac + 8;
      if (s + 13 <= b.length) rate = (b[s + 10] << 12) | (b[s + 11] << 4) | (b[s + 12] >> 4);
    }
  }
  if (!rate) return unknown;
  // The last page's granule position is the total sample count.
  for (let at = b.length - 27; at >= 0; at--) {
    if (b[at] === 0x4f && b[at + 1] === 0x67 && b[at + 2] === 0x67 && b[at + 3] === 0x53) {
      const v = new DataView(b.buffer, b.byteOffset + at + 6, 8);
      const granule = v.getUint32(0, true) + v.getUint32(4, true) * 2 ** 32;
      return exact(Math.max(0, granule - preSkip) / rate);
    }
  }
  return unknown;
}

function m4aDuration(b: Uint8Array): AudioDuration {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const walk = (start: number, end: number): AudioDuration => {
    let at = start;
    while (at + 8 <= end) {
      let size = v.getUint32(at);
      const type = ascii(b, at + 4, 4);
      let header = 8;
      if (size === 1 && at + 16 <= end) {
        size = v.getUint32(at + 8) * 2 ** 32 + v.getUint32(at + 12);
        header = 16;
      } else if (size === 0) size = end - at;
      if (size < header) return unknown;
      if (type === "moov") return walk(at + header, Math.min(end, at + size));
      if (type === "mvhd") {
        const body = at + header;
        const version = b[body];
        if (version === 1 && body + 32 <= end) {
          const timescale = v.getUint32(body + 20);
          const duration = v.getUint32(body + 24) * 2 ** 32 + v.getUint32(body + 28);
          return timescale ? exact(duration / timescale) : unknown;
        }
        if (body + 20 <= end) {
          const timescale = v.getUint32(body + 12);
          const duration = v.getUint32(body + 16);
          return timescale ? exact(duration / timescale) : unknown;
        }
        return unknown;
      }
      at += size;
    }
    return unknown;
  };
  return walk(0, b.length);
}

function readVint(b: Uint8Array, at: number): { value: number; length: number } | null {
  const first = b[at];
  if (first === undefined || first === 0) return null;
  let length = 1;
  while (!(first & (0x80 >> (length - 1)))) length++;
  let value = first & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + (b[at + i] ?? 0);
  return { value, length };
}

function webmDuration(b: Uint8Array): AudioDuration {
  // Segment Info: TimecodeScale (0x2AD7B1, default 1,000,000 ns) and Duration (0x4489, float, in ticks).
  const limit = Math.min(b.length, 64 * 1024);
  let scale = 1_000_000;
  let duration: number | null = null;
  for (let at = 0; at + 4 < limit; at++) {
    if (b[at] === 0x2a && b[at + 1] === 0xd7 && b[at + 2] === 0xb1) {
      const size = readVint(b, at + 3);
      if (size && size.value <= 8) {
        let n = 0;
        for (let i = 0; i < size.value; i++) n = n * 256 + b[at + 3 + size.length + i];
        if (n > 0) scale = n;
      }
    } else if (b[at] === 0x44 && b[at + 1] === 0x89) {
      const size = readVint(b, at + 2);
      const start = at + 2 + (size?.length ?? 0);
      if (size && (size.value === 4 || size.value === 8) && start + size.value <= b.length) {
        const v = new DataView(b.buffer, b.byteOffset + start, size.value);
        duration = size.value === 4 ? v.getFloat32(0) : v.getFloat64(0);
      }
    }
  }
  // Recordings from a browser's MediaRecorder carry no Duration: the last cluster's timecode plus its
  // last block's offset is where the audio ends (and a Duration that claims less is not believed).
  const clusters = lastClusterEnd(b);
  const ticks = Math.max(duration ?? 0, clusters ?? 0);
  return duration !== null || clusters !== null ? exact((ticks * scale) / 1e9) : unknown;
}

/** The timecode (in ticks) of the last block of a WebM file: last Cluster Timecode + its blocks' offsets. */
function lastClusterEnd(b: Uint8Array): number | null {
  let clusterTime: number | null = null;
  let end: number | null = null;
  for (let at = 0; at + 8 < b.length; at++) {
    if (b[at] === 0x1f && b[at + 1] === 0x43 && b[at + 2] === 0xb6 && b[at + 3] === 0x75) {
      const size = readVint(b, at + 4);
      const child = at + 4 + (size?.length ?? 1);
      // The Timecode (0xE7) comes first in a cluster.
      if (b[child] === 0xe7) {
        const len = readVint(b, child + 1);
        if (len && len.value >= 1 && len.value <= 8) {
          let n = 0;
          for (let i = 0; i < len.value; i++) n = n * 256 + (b[child + 1 + len.length + i] ?? 0);
          clusterTime = n;
          end = Math.max(end ?? 0, n);
        }
      }
    } else if (clusterTime !== null && b[at] === 0xa3) {
      // SimpleBlock: size, track number (vint), then a signed 16-bit offset from the cluster's time.
      const size = readVint(b, at + 1);
      if (!size) continue;
      const track = readVint(b, at + 1 + size.length);
      if (!track || track.value > 127) continue;
      const t = at + 1 + size.length + track.length;
      if (t + 2 > b.length) continue;
      const offset = (b[t] << 8) | b[t + 1];
      const signed = offset > 0x7fff ? offset - 0x10000 : offset;
      if (signed > 0 && signed < 30_000) end = Math.max(end ?? 0, clusterTime + signed);
    }
  }
  return end;
}

const MP3_BITRATES: Record<string, number[]> = {
  // [version-group][layer]: kbps by index
  "1-1": [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  "1-2": [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  "1-3": [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  "2-1": [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  "2-2": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  "2-3": [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MP3_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

function mp3Duration(b: Uint8Array): AudioDuration {
  let at = id3Size(b);
  while (at + 4 <= b.length && !(b[at] === 0xff && (b[at + 1] & 0xe0) === 0xe0)) at++;
  if (at + 4 > b.length) return unknown;
  const versionBits = (b[at + 1] >> 3) & 3; // 3 = MPEG1, 2 = MPEG2, 0 = MPEG2.5
  const layerBits = (b[at + 1] >> 1) & 3; // 3 = layer I, 2 = II, 1 = III
  const layer = 4 - layerBits;
  const bitrateIndex = b[at + 2] >> 4;
  const rateIndex = (b[at + 2] >> 2) & 3;
  if (versionBits === 1 || layerBits === 0 || rateIndex === 3) return unknown;
  const sampleRate = MP3_RATES[versionBits]?.[rateIndex];
  const kbps = MP3_BITRATES[`${versionBits === 3 ? 1 : 2}-${layer}`]?.[bitrateIndex];
  if (!sampleRate || !kbps) return unknown;
  const samplesPerFrame = layer === 1 ? 384 : layer === 2 ? 1152 : versionBits === 3 ? 1152 : 576;
  // Xing/Info (VBR) header: total frame count.
  const window = ascii(b, at, Math.min(200, b.length - at));
  const tag = Math.max(window.indexOf("Xing"), window.indexOf("Info"));
  if (tag >= 0 && at + tag + 12 <= b.length) {
    const flags = new DataView(b.buffer, b.byteOffset + at + tag + 4, 8);
    if (flags.getUint32(0) & 1) return exact((flags.getUint32(4) * samplesPerFrame) / sampleRate);
  }
  const seconds = ((b.length - at) * 8) / (kbps * 1000);
  return { seconds, how: "estimate" };
}

/**
 * The most bits per second each format can plausibly carry: a file whose header claims a shorter
 * recording than its size at this rate allows is counted at this rate instead (a doctored header
 * must not make a long recording look short).
 */
const MAX_BITS_PER_SECOND: Record<AudioFormat, number> = {
  webm: 512_000,
  ogg: 512_000,
  mp3: 320_000,
  m4a: 512_000,
  flac: 9_216_000,
  wav: 9_216_000,
};

/**
 * The seconds a recording is priced at before the provider has seen it: its duration as the file
 * states it, and at least what its size implies at the format's highest plausible bit rate.
 */
export function billableAudioSeconds(format: AudioFormat, bytes: Uint8Array): number {
  const stated = audioDuration(format, bytes).seconds ?? 0;
  return Math.max(stated, (bytes.length * 8) / MAX_BITS_PER_SECOND[format]);
}

export function audioDuration(format: AudioFormat, bytes: Uint8Array): AudioDuration {
  try {
    switch (format) {
      case "wav":
        return wavDuration(bytes);
      case "flac":
        return flacDuration(bytes);
      case "ogg":
        return oggDuration(bytes);
      case "m4a":
        return m4aDuration(bytes);
      case "webm":
        return webmDuration(bytes);
      case "mp3":
        return mp3Duration(bytes);
    }
  } catch {
    return unknown;
  }
}
