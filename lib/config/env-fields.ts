import { z } from "zod";

/**
 * The kinds of setting lib/config/env.ts declares: each reads a string (or nothing) from the
 * environment and says what is wrong in a few words, never repeating the value. Edge-safe.
 */
export const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .optional()
    .transform((v) => (v === undefined || v === "" ? fallback : v === "true" || v === "1" || v === "yes"));
/** An optional choice; an empty value (as an unedited .env.example line gives) means unset. */
export const optionalEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(
    (v) => (typeof v === "string" && v.trim() === "" ? undefined : typeof v === "string" ? v.trim() : v),
    z.enum(values).optional(),
  );
export const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));
export const optionalUrl = optionalText.pipe(z.url({ message: "must be a URL" }).optional());
/** A comma-separated list of email addresses, normalized (trimmed, lower case); unset or empty: none. */
export const emailList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const entries = (v ?? "")
      .split(",")
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean);
    entries.forEach((entry, i) => {
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(entry)) ctx.addIssue({ code: "custom", message: `entry ${i + 1} is not an email address` });
    });
    return entries;
  });
/** A comma-separated list of TCP ports (1-65535); unset or empty: none. */
export const portList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const entries = (v ?? "")
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    const ports = entries.map(Number);
    ports.forEach((port, i) => {
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        ctx.addIssue({ code: "custom", message: `entry ${i + 1} is not a port (1-65535)` });
    });
    return ports;
  });
export const int = (fallback: number, min = 0) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) {
        ctx.addIssue({ code: "custom", message: `must be an integer >= ${min}` });
        return z.NEVER;
      }
      return n;
    });

/** A decimal number (unset or empty: `fallback`, which may be undefined). */
export const decimal = (options: { fallback?: number; min: number; exclusiveMin?: boolean; max?: number }) =>
  z
    .string()
    .optional()
    .transform((v, ctx): number | undefined => {
      if (v === undefined || v.trim() === "") return options.fallback;
      const n = Number(v);
      const tooSmall = options.exclusiveMin ? n <= options.min : n < options.min;
      if (!Number.isFinite(n) || tooSmall || (options.max !== undefined && n > options.max)) {
        const range = `${options.exclusiveMin ? ">" : ">="} ${options.min}${options.max !== undefined ? ` and <= ${options.max}` : ""}`;
        ctx.addIssue({ code: "custom", message: `must be a number ${range}` });
        return z.NEVER;
      }
      return n;
    });
/** A JSON object (unset or empty: undefined), checked by `shape`; its problems are named by path. */
export const jsonObject = <T extends z.ZodType>(shape: T) =>
  z
    .string()
    .optional()
    .transform((v, ctx): z.infer<T> | undefined => {
      if (v === undefined || v.trim() === "") return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        ctx.addIssue({ code: "custom", message: "is not valid JSON" });
        return z.NEVER;
      }
      const result = shape.safeParse(parsed);
      if (!result.success) {
        for (const issue of result.error.issues.slice(0, 10))
          ctx.addIssue({ code: "custom", message: `${issue.path.join(".") || "(value)"}: ${issue.message}` });
        return z.NEVER;
      }
      return result.data;
    });
