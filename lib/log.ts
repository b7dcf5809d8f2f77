import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type DestinationStream, type Logger as PinoLogger } from "pino";
import { processState } from "@/lib/process-state";

/**
 * Structured logs through pino: one JSON line per event (pretty only with LOG_PRETTY=true, for a
 * developer's terminal), level by LOG_LEVEL, and the request id on every line logged while a request
 * is handled (the route wrapper runs each request in a context; see withRequestContext).
 * Secrets are redacted by path before a line is written: authorization and cookie headers, API keys,
 * secrets, passwords, tokens and email bodies, wherever a caller puts them (one level deep).
 * Call sites keep the shape log.info("message", { fields }).
 */
type Level = "debug" | "info" | "warn" | "error";

export type Logger = {
  [L in Level]: (msg: string, fields?: Record<string, unknown>) => void;
} & { child: (fields: Record<string, unknown>) => Logger };

const SECRET_KEYS = [
  "authorization",
  "cookie",
  "set-cookie",
  "apiKey",
  "api_key",
  "secret",
  "password",
  "token",
  "accessToken",
  "refreshToken",
  "html",
  "text",
  "body",
];
export const REDACTED_PATHS = [
  ...SECRET_KEYS.map((k) => (k.includes("-") ? `["${k}"]` : k)),
  ...SECRET_KEYS.map((k) => (k.includes("-") ? `*["${k}"]` : `*.${k}`)),
  ...SECRET_KEYS.map((k) => (k.includes("-") ? `*.headers["${k}"]` : `*.headers.${k}`)),
];

const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `fn` with `requestId` attached to every log line it (and what it awaits) writes. */
export function withRequestContext<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}

/** Lines at warn and above go to stderr, the rest to stdout (through console, which test spies see). */
const consoleStream: DestinationStream = {
  write(line: string) {
    const text = line.endsWith("\n") ? line.slice(0, -1) : line;
    if (text.includes('"level":"warn"') || text.includes('"level":"error"') || text.includes('"level":"fatal"')) console.error(text);
    else console.log(text);
  },
};

function createBase(level: string, pretty: boolean, destination?: DestinationStream): PinoLogger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    messageKey: "msg",
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    mixin: () => {
      const ctx = requestContext.getStore();
      return ctx ? { requestId: ctx.requestId } : {};
    },
  };
  if (destination) return pino(options, destination);
  if (pretty) {
    // A developer's choice (LOG_PRETTY=true); pino-pretty is a development dependency.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pinoPretty = require(/* turbopackIgnore: true */ "pino-pretty") as (o: object) => DestinationStream;
    return pino(options, pinoPretty({ colorize: true, sync: true, translateTime: "SYS:HH:MM:ss.l" }));
  }
  return pino(options, consoleStream);
}

let cached: { key: string; logger: PinoLogger } | undefined;

function root(): PinoLogger {
  const level = process.env.LOG_LEVEL?.trim() || (process.env.NODE_ENV === "test" ? "warn" : "info");
  const pretty = process.env.LOG_PRETTY === "true";
  const key = `${level}|${pretty}`;
  if (cached?.key !== key)
    cached = { key, logger: createBase(["debug", "info", "warn", "error"].includes(level) ? level : "info", pretty) };
  return cached.logger;
}

function serializeError(value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: serializeError(value.cause) };
  }
  return value;
}

function prepare(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!fields) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = serializeError(value);
  return out;
}

function wrap(get: () => PinoLogger, bindings: Record<string, unknown>): Logger {
  const emit = (level: Level) => (msg: string, fields?: Record<string, unknown>) => {
    const logger = get();
    if (!logger.isLevelEnabled(level)) return;
    logger[level]({ ...bindings, ...prepare(fields) }, msg);
  };
  return {
    debug: emit("debug"),
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    child: (fields) => wrap(get, { ...bindings, ...prepare(fields) }),
  };
}

export function createLogger(base: Record<string, unknown> = {}): Logger {
  return wrap(root, base);
}

/** A logger writing to `destination` (tests capture lines with it). */
export function createLoggerTo(destination: DestinationStream, base: Record<string, unknown> = {}, level = "debug"): Logger {
  const logger = createBase(level, false, destination);
  return wrap(() => logger, base);
}

export const log = createLogger();

/**
 * A dependency's state (the database, the rate-limit store, an AI provider), logged once per change:
 * a warning when it stops answering, a line when it answers again, nothing while it stays the same
 * (one process; each instance logs its own view). The first "up" is not logged.
 */
const dependencyStates = processState("dependencyStates", () => new Map<string, "up" | "down">());

export function dependencyState(dependency: string, state: "up" | "down", details: Record<string, unknown> = {}): void {
  const before = dependencyStates.get(dependency);
  if (before === state || (before === undefined && state === "up")) {
    if (before === undefined) dependencyStates.set(dependency, state);
    return;
  }
  dependencyStates.set(dependency, state);
  if (state === "down") log.warn("dependency unavailable", { dependency, ...details });
  else log.info("dependency available again", { dependency, ...details });
}
