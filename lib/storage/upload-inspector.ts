import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import { AppError } from "@/lib/errors";
import { detectBinaryType, isTextType, SNIFF_BYTES, type AllowedType } from "./file-types";

export interface InspectedUpload {
  size: number;
  sha256: string;
  contentType: AllowedType;
}

/**
 * A pass-through stream that checks an upload while it flows to storage, never holding more than the
 * first SNIFF_BYTES: counts bytes (stops at the size maximum: 413; past the declared size: 400), checks
 * the content against the declared type (magic bytes; text-like types must be UTF-8 without NULs) and
 * computes SHA-256. On a problem it errors with an AppError, kept in `failure`.
 */
export class UploadInspector extends Transform {
  failure: AppError | null = null;
  result: InspectedUpload | null = null;
  private total = 0;
  private readonly hash: Hash = createHash("sha256");
  private head: Buffer[] = [];
  private headLength = 0;
  private decided = false;
  private decoder: TextDecoder | null = null;

  constructor(
    private readonly declaredType: AllowedType,
    private readonly declaredSize: number,
    private readonly maxBytes: number,
  ) {
    super();
  }

  private fail(callback: TransformCallback, error: AppError): void {
    this.failure = error;
    callback(error);
  }

  /** Checks the head against the declared type and switches on text validation when text-like. */
  private decide(): AppError | null {
    this.decided = true;
    const head = Buffer.concat(this.head, this.headLength);
    const detected = detectBinaryType(head);
    if (isTextType(this.declaredType)) {
      if (detected)
        return new AppError("validation_failed", `File content is ${detected}, not ${this.declaredType} as declared in filetype`);
      this.decoder = new TextDecoder("utf-8", { fatal: true });
    } else if (detected !== this.declaredType) {
      return new AppError(
        "validation_failed",
        `File content does not match filetype ${this.declaredType}${detected ? ` (it is ${detected})` : ""}`,
      );
    }
    return null;
  }

  private checkText(chunk: Buffer, final: boolean): AppError | null {
    if (!this.decoder) return null;
    if (chunk.includes(0))
      return new AppError("validation_failed", `File content is not text (NUL byte) but filetype is ${this.declaredType}`);
    try {
      this.decoder.decode(chunk, { stream: !final });
    } catch {
      return new AppError("validation_failed", `File content is not valid UTF-8 text but filetype is ${this.declaredType}`);
    }
    return null;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.total += chunk.length;
    if (this.total > this.maxBytes) {
      return this.fail(callback, new AppError("payload_too_large", `File is larger than the maximum of ${this.maxBytes} bytes`));
    }
    if (this.total > this.declaredSize) {
      return this.fail(callback, new AppError("validation_failed", `Body is larger than filesize (${this.declaredSize} bytes)`));
    }
    this.hash.update(chunk);
    if (!this.decided) {
      this.head.push(chunk);
      this.headLength += chunk.length;
      if (this.headLength < SNIFF_BYTES) return callback();
      const problem = this.decide();
      if (problem) return this.fail(callback, problem);
      const head = Buffer.concat(this.head, this.headLength);
      this.head = [];
      const textProblem = this.checkText(head, false);
      if (textProblem) return this.fail(callback, textProblem);
      return callback(null, head);
    }
    const problem = this.checkText(chunk, false);
    if (problem) return this.fail(callback, problem);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.total !== this.declaredSize) {
      return this.fail(callback, new AppError("validation_failed", `Received ${this.total} bytes but filesize is ${this.declaredSize}`));
    }
    let pending: Buffer | null = null;
    if (!this.decided) {
      const problem = this.decide();
      if (problem) return this.fail(callback, problem);
      pending = Buffer.concat(this.head, this.headLength);
      this.head = [];
    }
    const problem = this.checkText(pending ?? Buffer.alloc(0), true);
    if (problem) return this.fail(callback, problem);
    this.result = { size: this.total, sha256: this.hash.digest("hex"), contentType: this.declaredType };
    callback(null, pending && pending.length ? pending : undefined);
  }
}
