import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, createLoggerTo, withRequestContext } from "@/lib/log";
import { setEnv } from "@/tests/helpers/env";

afterEach(() => vi.restoreAllMocks());

function capture() {
  const lines: string[] = [];
  return {
    lines,
    stream: { write: (line: string) => void lines.push(line) },
    parsed: () => lines.map((l) => JSON.parse(l) as Record<string, any>),
  };
}

describe("logs (pino)", () => {
  it("redact secrets by path: authorization and cookie headers, API keys, secrets, passwords, tokens, email bodies", () => {
    const out = capture();
    const log = createLoggerTo(out.stream);
    const secrets = {
      authorization: "Bearer sk-live-AUTHZ-0001",
      headers: {
        authorization: "Bearer hdr-AUTHZ-0002",
        cookie: "next-auth.session-token=COOKIE-0003",
        "set-cookie": "sid=SETCOOKIE-0004",
      },
      provider: { apiKey: "sk-APIKEY-0005", secret: "whsec_SECRET-0006", password: "PASSWORD-0007", token: "TOKEN-0008" },
      email: { to: "someone@example.com", subject: "Your receipt", html: "<p>HTML-BODY-0009</p>", text: "TEXT-BODY-0010" },
      req: { headers: { authorization: "Bearer REQ-0011", cookie: "c=REQCOOKIE-0012" } },
    };
    log.info("a line full of secrets", secrets);
    log.error("and as an error", { upstream: { apiKey: "sk-APIKEY-0013" }, error: new Error("boom") });
    const text = out.lines.join("\n");
    for (const value of [
      "AUTHZ-0001",
      "AUTHZ-0002",
      "COOKIE-0003",
      "SETCOOKIE-0004",
      "APIKEY-0005",
      "SECRET-0006",
      "PASSWORD-0007",
      "TOKEN-0008",
      "HTML-BODY-0009",
      "TEXT-BODY-0010",
      "REQ-0011",
      "REQCOOKIE-0012",
      "APIKEY-0013",
    ]) {
      expect(text).not.toContain(value);
    }
    const [first, second] = out.parsed();
    expect(first).toMatchObject({
      level: "info",
      msg: "a line full of secrets",
      email: { to: "someone@example.com", subject: "Your receipt", html: "[redacted]" },
    });
    expect(second.error).toMatchObject({ name: "Error", message: "boom" });
    expect(typeof first.time).toBe("string");
  });

  it("put the request id on every line logged while a request is handled, nested calls included", async () => {
    const out = capture();
    const log = createLoggerTo(out.stream);
    const inner = async () => {
      await new Promise((r) => setTimeout(r, 1));
      log.warn("deep in domain code");
    };
    await withRequestContext("req-abc-123", async () => {
      log.info("in the handler");
      await inner();
    });
    log.info("outside any request");
    expect(out.parsed().map((l) => l.requestId)).toEqual(["req-abc-123", "req-abc-123", undefined]);
  });

  it("honour LOG_LEVEL, and write JSON lines (warn and above to stderr)", () => {
    const restore = setEnv({ LOG_LEVEL: "warn", LOG_PRETTY: undefined });
    const stdout: string[] = [];
    const stderr: string[] = [];
    vi.spyOn(console, "log").mockImplementation((l: unknown) => void stdout.push(String(l)));
    vi.spyOn(console, "error").mockImplementation((l: unknown) => void stderr.push(String(l)));
    try {
      const log = createLogger({ component: "test" });
      log.info("hidden");
      log.warn("shown", { n: 1 });
      expect(stdout).toEqual([]);
      expect(JSON.parse(stderr[0])).toMatchObject({ level: "warn", msg: "shown", component: "test", n: 1 });
    } finally {
      restore();
    }
  });
});
