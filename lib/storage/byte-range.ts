import { AppError } from "@/lib/errors";

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

/**
 * Reads a `Range: bytes=...` header (RFC 9110 §14) against a file of `size` bytes. Only one range is
 * served: a header that is absent, malformed, not in bytes or asks for several ranges gets the whole
 * file (null), as the RFC allows; a well-formed range that starts past the end is 416.
 */
export function parseByteRange(header: string | null, size: number): ByteRange | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  let start: number;
  let end: number;
  if (match[1] === "") {
    // Suffix range: the last N bytes.
    const suffix = Number(match[2]);
    if (suffix === 0) throw unsatisfiable(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== "" && Number(match[2]) < start) return null;
  }
  if (start >= size || size === 0) throw unsatisfiable(size);
  return { start, end };
}

function unsatisfiable(size: number): AppError {
  return new AppError("range_not_satisfiable", `Range not satisfiable: the file has ${size} bytes`, {
    headers: { "content-range": `bytes */${size}` },
  });
}
