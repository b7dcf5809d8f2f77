/**
 * Audio files of each accepted format with real frames, packets or samples (silence or a tone) and a
 * known playing length, as a decoder would decode them (tests only). Each has a `lie` option that
 * makes its header claim another duration (a byte rate, a frame count, a total sample count, a last
 * granule, a Duration element, a movie header) without changing what plays: the length a decoder
 * plays, and a provider bills, is still `seconds`.
 */
export interface Lie {
  /** The duration the header should claim, in seconds. */
  claims: number;
}

export function wav(seconds: number, sampleRate = 16000, channels = 1, bits = 16, lie?: Lie): Buffer {
  const byteRate = (sampleRate * channels * bits) / 8;
  const dataSize = Math.round(seconds * sampleRate) * channels * (bits / 8);
  const b = Buffer.alloc(44 + dataSize);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(36 + dataSize, 4);
  b.write("WAVE", 8, "latin1");
  b.write("fmt ", 12, "latin1");
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(channels, 22);
  b.writeUInt32LE(sampleRate, 24);
  // The byte rate and the data chunk's size are what a lying header changes: neither is what plays.
  b.writeUInt32LE(lie ? Math.round(dataSize / lie.claims) : byteRate, 28);
  b.writeUInt16LE((channels * bits) / 8, 32);
  b.writeUInt16LE(bits, 34);
  b.write("data", 36, "latin1");
  b.writeUInt32LE(lie ? Math.min(dataSize, Math.round(lie.claims * byteRate)) : dataSize, 40);
  for (let i = 44; i + 1 < b.length; i += 2) b.writeInt16LE(Math.round(Math.sin(i / 20) * 8000), i);
  return b;
}

/** MPEG audio frame headers: MPEG-1 layer III 128 kbps 44.1 kHz (417 bytes, 26.1 ms) and MPEG-2.5 layer III 8 kbps 8 kHz (72 bytes, 72 ms). */
const MP3_128K = [0xff, 0xfb, 0x90, 0x64];
const MP3_8K = [0xff, 0xe3, 0x18, 0xc4];

function mp3Frame(header: number[], length: number): Buffer {
  const f = Buffer.alloc(length);
  Buffer.from(header).copy(f);
  return f;
}

/**
 * MP3 of `seconds`. `lowRate`: 8 kbps frames (72 ms each) after one 128 kbps first frame, so a file
 * priced by its first frame's bit rate looks sixteen times shorter. `lie`: a Xing frame claiming
 * that many seconds of frames.
 */
export function mp3(seconds: number, withId3 = true, options: { lowRate?: boolean; lie?: Lie } = {}): Buffer {
  const id3 = withId3 ? Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 10, ...Buffer.alloc(10)]) : Buffer.alloc(0);
  const frames: Buffer[] = [];
  if (options.lie) {
    const xing = mp3Frame(MP3_128K, 417);
    xing.write("Xing", 36, "latin1");
    xing.writeUInt32BE(1, 40);
    xing.writeUInt32BE(Math.round((options.lie.claims * 44100) / 1152), 44);
    frames.push(xing);
  }
  if (options.lowRate) {
    frames.push(mp3Frame(MP3_128K, 417));
    const count = Math.round((seconds - 1152 / 44100) / 0.072);
    for (let i = 0; i < count; i++) frames.push(mp3Frame(MP3_8K, 72));
  } else {
    const count = Math.round((seconds * 44100) / 1152);
    for (let i = 0; i < count; i++) frames.push(mp3Frame(MP3_128K, 417));
  }
  return Buffer.concat([id3, ...frames]);
}

function crc8(b: Buffer): number {
  let c = 0;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
  }
  return c;
}

function crc16(b: Buffer): number {
  let c = 0;
  for (const x of b) {
    c ^= x << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x8005) & 0xffff : (c << 1) & 0xffff;
  }
  return c;
}

/** A FLAC frame of 4096 samples, two channels of 16-bit silence (CONSTANT subframes), with both CRCs. */
function flacFrame(number: number, rateCode: number): Buffer {
  // UTF-8 coded frame number (up to 2^16 frames: 1 to 3 bytes).
  const num =
    number < 0x80
      ? [number]
      : number < 0x800
        ? [0xc0 | (number >> 6), 0x80 | (number & 0x3f)]
        : [0xe0 | (number >> 12), 0x80 | ((number >> 6) & 0x3f), 0x80 | (number & 0x3f)];
  const header = Buffer.from([0xff, 0xf8, 0xc0 | rateCode, 0x18, ...num]); // block 4096, stereo, 16-bit
  const withCrc = Buffer.concat([header, Buffer.from([crc8(header)])]);
  // Two CONSTANT subframes (type 0): a header byte and the 16-bit value.
  const body = Buffer.concat([withCrc, Buffer.from([0x00, 0x00, 0x00, 0x00, 0x00, 0x00])]);
  const crc = Buffer.alloc(2);
  crc.writeUInt16BE(crc16(body));
  return Buffer.concat([body, crc]);
}

/** FLAC of about `seconds` (whole 4096-sample blocks at 44.1 kHz); `lie`: STREAMINFO's total sample count claims that. */
export function flac(seconds: number, sampleRate = 44100, lie?: Lie): Buffer {
  const blocks = Math.max(1, Math.round((seconds * sampleRate) / 4096));
  const total = Math.round((lie ? lie.claims : (blocks * 4096) / sampleRate) * sampleRate);
  const info = Buffer.alloc(4 + 34);
  info[0] = 0x80; // last metadata block, STREAMINFO
  info.writeUIntBE(34, 1, 3);
  const s = 4;
  info.writeUInt16BE(4096, s);
  info.writeUInt16BE(4096, s + 2);
  const channels = 2;
  const bps = 16;
  info[s + 10] = (sampleRate >> 12) & 0xff;
  info[s + 11] = (sampleRate >> 4) & 0xff;
  info[s + 12] = ((sampleRate & 0x0f) << 4) | ((channels - 1) << 1) | ((bps - 1) >> 4);
  info[s + 13] = (((bps - 1) & 0x0f) << 4) | (Math.floor(total / 2 ** 32) & 0x0f);
  info.writeUInt32BE(total % 2 ** 32, s + 14);
  const rateCode = sampleRate === 44100 ? 9 : sampleRate === 48000 ? 10 : 0;
  const frames = Array.from({ length: blocks }, (_, i) => flacFrame(i, rateCode));
  return Buffer.concat([Buffer.from("fLaC", "latin1"), info, ...frames]);
}

function crc32Ogg(b: Buffer): number {
  let c = 0;
  for (const x of b) {
    c ^= x << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? ((c << 1) ^ 0x04c11db7) >>> 0 : (c << 1) >>> 0;
  }
  return c >>> 0;
}

function oggPage(serial: number, sequence: number, granule: number, flags: number, packets: Buffer[]): Buffer {
  const segments: number[] = [];
  for (const p of packets) {
    let n = p.length;
    while (n >= 255) {
      segments.push(255);
      n -= 255;
    }
    segments.push(n);
  }
  const h = Buffer.alloc(27 + segments.length);
  h.write("OggS", 0, "latin1");
  h[5] = flags;
  h.writeUInt32LE(granule % 2 ** 32, 6);
  h.writeUInt32LE(Math.floor(granule / 2 ** 32), 10);
  h.writeUInt32LE(serial, 14);
  h.writeUInt32LE(sequence, 18);
  h[26] = segments.length;
  segments.forEach((n, i) => (h[27 + i] = n));
  const page = Buffer.concat([h, ...packets]);
  page.writeUInt32LE(crc32Ogg(page), 22);
  return page;
}

/** An Opus packet of one 20 ms SILK frame (configuration 1, code 0), a few bytes of payload. */
const opusPacket = () => Buffer.from([0x08, 0x01, 0x02, 0x03]);

/** Ogg Opus of `seconds` (20 ms packets, 50 a page); `lie`: the pages' granule positions claim that length instead. */
export function ogg(seconds: number, lie?: Lie): Buffer {
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "latin1");
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48000, 12);
  const tags = Buffer.concat([Buffer.from("OpusTags", "latin1"), Buffer.from([4, 0, 0, 0]), Buffer.from("test"), Buffer.alloc(4)]);
  const packets = Math.round(seconds / 0.02);
  const scale = lie ? lie.claims / seconds : 1;
  const pages = [oggPage(7, 0, 0, 2, [head]), oggPage(7, 1, 0, 0, [tags])];
  for (let sent = 0, seq = 2; sent < packets; seq++) {
    const n = Math.min(50, packets - sent);
    sent += n;
    pages.push(oggPage(7, seq, Math.round(sent * 960 * scale) + 312, sent === packets ? 4 : 0, Array.from({ length: n }, opusPacket)));
  }
  return Buffer.concat(pages);
}

function ebml(id: number[], body: Buffer | number[]): Buffer {
  const content = Buffer.isBuffer(body) ? body : Buffer.from(body);
  // An 8-byte size: every element's size fits.
  const size = Buffer.alloc(8);
  size[0] = 0x01;
  size.writeUIntBE(content.length, 2, 6);
  return Buffer.concat([Buffer.from(id), size, content]);
}

/** An element of unknown size, as a live recorder (a browser's MediaRecorder) writes Segments and Clusters. */
function ebmlOpen(id: number[]): Buffer {
  return Buffer.from([...id, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
}

/**
 * WebM of `seconds` of Opus (a browser's recording: Segment and Clusters of unknown size, one 20 ms
 * packet a SimpleBlock, 50 a cluster). `duration`: a Segment Info Duration (ms) claiming that many
 * seconds; null: none, as MediaRecorder writes.
 */
export function webm(seconds: number, duration: number | null = seconds): Buffer {
  const header = ebml([0x1a, 0x45, 0xdf, 0xa3], ebml([0x42, 0x82], Buffer.from("webm")));
  const durationEl =
    duration === null
      ? Buffer.alloc(0)
      : ebml(
          [0x44, 0x89],
          (() => {
            const d = Buffer.alloc(8);
            d.writeDoubleBE(duration * 1000);
            return d;
          })(),
        );
  const info = ebml([0x15, 0x49, 0xa9, 0x66], Buffer.concat([ebml([0x2a, 0xd7, 0xb1], [0x0f, 0x42, 0x40]), durationEl]));
  const track = ebml(
    [0xae],
    Buffer.concat([
      ebml([0xd7], [1]),
      ebml([0x83], [2]),
      ebml([0x86], Buffer.from("A_OPUS")),
      ebml(
        [0xe1],
        ebml(
          [0xb5],
          (() => {
            const f = Buffer.alloc(8);
            f.writeDoubleBE(48000);
            return f;
          })(),
        ),
      ),
    ]),
  );
  const tracks = ebml([0x16, 0x54, 0xae, 0x6b], track);
  const packets = Math.round(seconds / 0.02);
  const clusters: Buffer[] = [];
  for (let sent = 0; sent < packets;) {
    const n = Math.min(50, packets - sent);
    const blocks: Buffer[] = [];
    for (let i = 0; i < n; i++)
      blocks.push(ebml([0xa3], Buffer.concat([Buffer.from([0x81, (i * 20) >> 8, (i * 20) & 0xff, 0x80]), opusPacket()])));
    clusters.push(
      Buffer.concat([
        ebmlOpen([0x1f, 0x43, 0xb6, 0x75]),
        ebml([0xe7], [(sent * 20) >> 16, (sent * 20) >> 8, (sent * 20) & 0xff]),
        ...blocks,
      ]),
    );
    sent += n;
  }
  return Buffer.concat([header, ebmlOpen([0x18, 0x53, 0x80, 0x67]), info, tracks, ...clusters]);
}

function box(type: string, ...body: Buffer[]): Buffer {
  const content = Buffer.concat(body);
  const h = Buffer.alloc(8);
  h.writeUInt32BE(8 + content.length, 0);
  h.write(type, 4, "latin1");
  return Buffer.concat([h, content]);
}

const fullBox = (type: string, ...body: Buffer[]) => box(type, Buffer.alloc(4), ...body);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/**
 * M4A (AAC-LC, 44.1 kHz, mono) of about `seconds`: one 1,024-sample access unit per sample in the
 * tables. `lie`: the movie and media headers' durations claim that many seconds instead.
 */
export function m4a(seconds: number, lie?: Lie): Buffer {
  const rate = 44100;
  const samples = Math.max(1, Math.round((seconds * rate) / 1024));
  const claimed = Math.round((lie ? lie.claims : seconds) * rate);
  const ftyp = box("ftyp", Buffer.from("M4A ", "latin1"), Buffer.alloc(4), Buffer.from("isomM4A ", "latin1"));
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(rate, 12);
  mvhd.writeUInt32BE(claimed, 16);
  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(1, 12);
  const mdhd = Buffer.concat([Buffer.alloc(12), u32(rate), u32(claimed), Buffer.alloc(4)]);
  const hdlr = Buffer.concat([Buffer.alloc(8), Buffer.from("soun", "latin1"), Buffer.alloc(12), Buffer.from("SoundHandler\0", "latin1")]);
  // AudioSpecificConfig: AAC-LC (2), 44.1 kHz (index 4), one channel.
  const asc = Buffer.from([0x12, 0x08]);
  const esds = fullBox(
    "esds",
    Buffer.from([0x03, 0x19, 0x00, 0x01, 0x00]),
    Buffer.from([0x04, 0x11, 0x40, 0x15, 0x00, 0x00, 0x00]),
    u32(64000),
    u32(64000),
    Buffer.from([0x05, asc.length]),
    asc,
    Buffer.from([0x06, 0x01, 0x02]),
  );
  const entry = Buffer.concat([
    Buffer.alloc(6),
    Buffer.from([0, 1]),
    Buffer.alloc(8),
    Buffer.from([0, 1, 0, 16]),
    Buffer.alloc(4),
    u32(rate * 65536),
  ]);
  const mp4a = box("mp4a", entry, esds);
  const stsd = fullBox("stsd", u32(1), mp4a);
  const stts = fullBox("stts", u32(1), u32(samples), u32(lie ? Math.max(1, Math.floor(claimed / samples)) : 1024));
  const stsz = fullBox("stsz", u32(6), u32(samples));
  const stco = fullBox("stco", u32(1), u32(0));
  const stbl = box("stbl", stsd, stts, stsz, stco);
  const trak = box("trak", box("tkhd", tkhd), box("mdia", box("mdhd", mdhd), box("hdlr", hdlr), box("minf", stbl)));
  const moov = box("moov", box("mvhd", mvhd), trak);
  return Buffer.concat([ftyp, moov, box("mdat", Buffer.alloc(samples * 6, 0x21))]);
}
