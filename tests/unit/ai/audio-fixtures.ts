/** Minimal but well-formed audio files of each accepted format, with known durations (tests only). */
export function wav(seconds: number, sampleRate = 16000, channels = 1, bits = 16): Buffer {
  const byteRate = (sampleRate * channels * bits) / 8;
  const dataSize = Math.round(seconds * byteRate);
  const b = Buffer.alloc(44 + dataSize);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(36 + dataSize, 4);
  b.write("WAVE", 8, "latin1");
  b.write("fmt ", 12, "latin1");
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(channels, 22);
  b.writeUInt32LE(sampleRate, 24);
  b.writeUInt32LE(byteRate, 28);
  b.writeUInt16LE((channels * bits) / 8, 32);
  b.writeUInt16LE(bits, 34);
  b.write("data", 36, "latin1");
  b.writeUInt32LE(dataSize, 40);
  for (let i = 44; i < b.length; i += 2) b.writeInt16LE(Math.round(Math.sin(i / 20) * 8000), i);
  return b;
}

export function flac(seconds: number, sampleRate = 44100): Buffer {
  const total = Math.round(seconds * sampleRate);
  const b = Buffer.alloc(8 + 34 + 16);
  b.write("fLaC", 0, "latin1");
  b[4] = 0x80; // last metadata block, type 0 (STREAMINFO)
  b.writeUIntBE(34, 5, 3);
  const s = 8;
  b.writeUInt16BE(4096, s);
  b.writeUInt16BE(4096, s + 2);
  const channels = 2;
  const bps = 16;
  b[s + 10] = (sampleRate >> 12) & 0xff;
  b[s + 11] = (sampleRate >> 4) & 0xff;
  b[s + 12] = ((sampleRate & 0x0f) << 4) | ((channels - 1) << 1) | ((bps - 1) >> 4);
  b[s + 13] = (((bps - 1) & 0x0f) << 4) | (Math.floor(total / 2 ** 32) & 0x0f);
  b.writeUInt32BE(total % 2 ** 32, s + 14);
  return b;
}

/** CBR MPEG-1 layer III, 128 kbps, 44.1 kHz frames (417 bytes each). */
export function mp3(seconds: number, withId3 = true): Buffer {
  const frames = Math.round((seconds * 44100) / 1152);
  const frame = Buffer.alloc(417);
  frame[0] = 0xff;
  frame[1] = 0xfb;
  frame[2] = 0x90;
  frame[3] = 0x64;
  const id3 = withId3 ? Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 10, ...Buffer.alloc(10)]) : Buffer.alloc(0);
  return Buffer.concat([id3, ...Array.from({ length: frames }, () => frame)]);
}

function oggPage(granule: number, flags: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(27 + 1);
  h.write("OggS", 0, "latin1");
  h[5] = flags;
  h.writeUInt32LE(granule % 2 ** 32, 6);
  h.writeUInt32LE(Math.floor(granule / 2 ** 32), 10);
  h.writeUInt32LE(1234, 14);
  h[26] = 1;
  h[27] = payload.length;
  return Buffer.concat([h, payload]);
}

/** Ogg Opus: OpusHead page, then a last page whose granule is 48 kHz samples + pre-skip. */
export function ogg(seconds: number): Buffer {
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "latin1");
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48000, 12);
  return Buffer.concat([oggPage(0, 2, head), oggPage(0, 0, Buffer.alloc(100, 7)), oggPage(Math.round(seconds * 48000) + 312, 4, Buffer.alloc(50, 9))]);
}

function box(type: string, body: Buffer): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt32BE(8 + body.length, 0);
  h.write(type, 4, "latin1");
  return Buffer.concat([h, body]);
}

export function m4a(seconds: number, timescale = 44100): Buffer {
  const ftyp = box("ftyp", Buffer.concat([Buffer.from("M4A ", "latin1"), Buffer.alloc(4), Buffer.from("isomM4A ", "latin1")]));
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(timescale, 12);
  mvhd.writeUInt32BE(Math.round(seconds * timescale), 16);
  return Buffer.concat([ftyp, box("free", Buffer.alloc(20)), box("moov", box("mvhd", mvhd)), box("mdat", Buffer.alloc(200, 1))]);
}

/** WebM with a Segment Info Duration (ms ticks at the default TimecodeScale), or without one (as MediaRecorder writes). */
export function webm(seconds: number | null): Buffer {
  const ebml = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01, 0x42, 0x82, 0x84, 0x77, 0x65, 0x62, 0x6d]);
  const scale = Buffer.from([0x2a, 0xd7, 0xb1, 0x83, 0x0f, 0x42, 0x40]);
  const dur = Buffer.alloc(11);
  dur[0] = 0x44;
  dur[1] = 0x89;
  dur[2] = 0x88;
  if (seconds !== null) dur.writeDoubleBE(seconds * 1000, 3);
  const info = Buffer.concat([scale, seconds !== null ? dur : Buffer.alloc(0)]);
  const infoEl = Buffer.concat([Buffer.from([0x15, 0x49, 0xa9, 0x66, 0x80 | info.length]), info]);
  const segment = Buffer.concat([Buffer.from([0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), infoEl, Buffer.alloc(300, 3)]);
  return Buffer.concat([ebml, segment]);
}
