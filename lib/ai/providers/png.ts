import { deflateSync } from "node:zlib";

/** A tiny PNG encoder (8-bit RGB or RGBA, Sub filter, zlib via node:zlib) for the offline provider. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** pixel(x, y, out) writes channels (3 or 4) bytes into out. */
export function encodePng(width: number, height: number, alpha: boolean, pixel: (x: number, y: number, out: Uint8Array) => void): Buffer {
  const channels = alpha ? 4 : 3;
  const stride = width * channels + 1;
  const raw = Buffer.alloc(stride * height);
  const px = new Uint8Array(channels);
  const prev = new Uint8Array(channels);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    raw[row] = 1; // Sub filter: each byte minus the same channel of the pixel to its left
    prev.fill(0);
    for (let x = 0; x < width; x++) {
      pixel(x, y, px);
      const at = row + 1 + x * channels;
      for (let c = 0; c < channels; c++) {
        raw[at + c] = (px[c] - prev[c]) & 0xff;
        prev[c] = px[c];
      }
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = alpha ? 6 : 2; // RGBA | RGB
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 6 })),
    chunk("IEND", new Uint8Array(0)),
  ]);
}
