import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { guardedLookup, isBlockedAddress, portAllowed, portRefusal, privateTargetsAllowed } from "./safe-target";

/** At most this much of a receiver's answer is read (the rest is not waited for). */
export const MAX_ANSWER_BYTES = 64 * 1024;
export const SEND_TIMEOUT_MS = 10_000;

export interface SendOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * POSTs a signed JSON body to an endpoint: through the SSRF-guarded lookup (the connection goes to the
 * address that was checked), no redirects followed, 10 seconds in all, at most 64 KB of the answer
 * read. 2xx is delivered; anything else (or no answer) is a failure to retry.
 */
export function postWebhook(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const literal = target.hostname.replace(/^\[|\]$/g, "");
    if (!privateTargetsAllowed() && isIP(literal) !== 0 && isBlockedAddress(literal)) {
      resolve({ ok: false, status: null, error: `${literal} is a private, loopback or link-local address` });
      return;
    }
    // Checked again at each delivery: an endpoint registered before the policy changed is held to it too.
    if (!portAllowed(target)) {
      resolve({ ok: false, status: null, error: portRefusal(target) });
      return;
    }
    const client = target.protocol === "https:" ? https : http;
    let settled = false;
    const finish = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = client.request(
      target,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "subscription-ai-webhooks/1",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
        lookup: guardedLookup as never,
        agent: false,
      },
      (res) => {
        let read = 0;
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          finish({ ok: status >= 200 && status < 300, status, error: status >= 200 && status < 300 ? null : `answered ${status}` });
        };
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, status: null, error: `no answer within ${SEND_TIMEOUT_MS / 1000} seconds` });
    }, SEND_TIMEOUT_MS);
    req.on("error", (error: NodeJS.ErrnoException) =>
      finish({
        ok: false,
        status: null,
        error: error.code === "EBLOCKED" ? error.message : `could not connect (${error.code ?? error.message})`,
      }),
    );
    req.end(body);
  });
}
