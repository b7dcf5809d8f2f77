import { describe, expect, it } from "vitest";
import { detectBinaryType, normalizeDeclaredType } from "@/lib/storage/file-types";

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

describe("detectBinaryType (magic bytes)", () => {
  it.each([
    ["image/png", bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "rest")],
    ["image/jpeg", bytes([0xff, 0xd8, 0xff, 0xdb], "rest")],
    ["image/gif", bytes("GIF89a", [1, 0])],
    ["image/gif", bytes("GIF87a", [1, 0])],
    ["image/webp", bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 ")],
    ["application/pdf", bytes("%PDF-1.4\n")],
    ["audio/wav", bytes("RIFF", [0, 0, 0, 0], "WAVEfmt ")],
    ["audio/mpeg", bytes("ID3", [4, 0, 0, 0, 0, 0, 0])],
    ["audio/mpeg", bytes([0xff, 0xfb, 0x90, 0x64])],
    ["audio/ogg", bytes("OggS", [0, 2])],
    ["audio/flac", bytes("fLaC", [0, 0, 0, 0x22])],
    ["audio/flac", bytes("ID3", [4, 0, 0, 0, 0, 0, 2], [0, 0], "fLaC")],
    ["audio/mp4", bytes([0, 0, 0, 0x20], "ftypM4A ")],
    ["audio/webm", bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01], [0x42, 0x82, 0x84], "webm")],
  ])("detects %s", (type, head) => {
    expect(detectBinaryType(head)).toBe(type);
  });

  it.each([
    ["plain text", bytes("hello world")],
    ["JSON", bytes('{"a":1}')],
    ["HTML", bytes("<!doctype html><script>")],
    ["an ELF executable", bytes([0x7f], "ELF", [2, 1, 1])],
    ["a ZIP archive", bytes("PK", [3, 4])],
    ["ADTS AAC (not MPEG layer audio)", bytes([0xff, 0xf1, 0x50, 0x80])],
    ["Matroska video", bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86], "matroska")],
    ["nothing", Buffer.alloc(0)],
  ])("detects no allowed binary type in %s", (_name, head) => {
    expect(detectBinaryType(head)).toBeNull();
  });
});

describe("normalizeDeclaredType", () => {
  it.each([
    ["image/PNG", "image/png"],
    ["image/jpg", "image/jpeg"],
    ["text/plain; charset=UTF-8", "text/plain"],
    ["audio/mp3", "audio/mpeg"],
    ["audio/x-wav", "audio/wav"],
    ["audio/x-m4a", "audio/mp4"],
    ["text/x-markdown", "text/markdown"],
  ])("%s -> %s", (declared, canonical) => {
    expect(normalizeDeclaredType(declared)).toBe(canonical);
  });

  it.each(["text/html", "image/svg+xml", "application/zip", "video/mp4", "", "application/octet-stream"])(
    "%s is not allowed",
    (declared) => {
      expect(normalizeDeclaredType(declared)).toBeNull();
    },
  );
});
