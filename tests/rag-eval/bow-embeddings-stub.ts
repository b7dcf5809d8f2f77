import { createHash } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OpenAI-compatible `/v1/embeddings` peer (127.0.0.1, ephemeral port) whose vectors carry
 * meaning: feature-hashed bags of lightly stemmed words and word bigrams, L2-normalized, 1536
 * dimensions. Texts sharing vocabulary are close, so vector search ranks like a (weak) lexical
 * embedding model. Used by the retrieval evaluation and the retrieval benchmark; it makes no claim
 * about a real model's quality.
 */
const STOP = new Set(
  "a an and are as at be by can do does for from how i in is it its my of on or the this to what when which who why will with you your".split(
    " ",
  ),
);

function stem(word: string): string {
  return word
    .replace(/(ies)$/, "y")
    .replace(/(ing|ed|es|s)$/, "")
    .slice(0, 12);
}

function bucket(feature: string, dim: number): [number, number] {
  const h = createHash("md5").update(feature).digest();
  return [h.readUInt32LE(0) % dim, h[4] & 1 ? 1 : -1];
}

export function bowEmbedding(text: string, dim = 1536): number[] {
  const v = new Array<number>(dim).fill(0);
  const words = (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOP.has(w)).map(stem);
  words.forEach((w, i) => {
    const [idx, sign] = bucket(`w:${w}`, dim);
    v[idx] += sign;
    if (i > 0) {
      const [bi, bs] = bucket(`b:${words[i - 1]}_${w}`, dim);
      v[bi] += 0.5 * bs;
    }
  });
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

export interface EmbeddingsStub {
  url: string;
  /** Embeddings requests received. */
  requests: number;
  /** Answer the next `n` embeddings requests with 503. */
  failNext(n?: number): void;
  close(): Promise<void>;
}

/**
 * Starts the peer. With `forwardTo` (another OpenAI-compatible base URL, e.g. the shared test stub),
 * every request other than embeddings is proxied there unchanged (streams included), so chat and
 * embeddings share one OPENAI_BASE_URL.
 */
export async function startBowEmbeddingsStub(options: { dim?: number; forwardTo?: string } = {}): Promise<EmbeddingsStub> {
  const dim = options.dim ?? 1536;
  const state = { requests: 0, failures: 0 };
  const server: Server = createServer((req, res) => {
    if (options.forwardTo && !req.url?.endsWith("/embeddings")) {
      const target = new URL(options.forwardTo);
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: `${target.pathname.replace(/\/v1$/, "")}${req.url}`,
          headers: req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.on("aborted", () => res.destroy());
          up.on("error", () => res.destroy());
          up.pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      res.on("close", () => upstream.destroy());
      req.pipe(upstream);
      return;
    }
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/embeddings")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error" } }));
        return;
      }
      state.requests++;
      if (state.failures > 0) {
        state.failures--;
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "embeddings unavailable", type: "server_error" } }));
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as {
        input: string | string[];
        model?: string;
        encoding_format?: string;
      };
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      // The openai SDK asks for base64 (little-endian float32) unless told otherwise, as the real API allows.
      const encode = (v: number[]) => (body.encoding_format === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v);
      const data = inputs.map((text, index) => ({ object: "embedding", index, embedding: encode(bowEmbedding(String(text), dim)) }));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          data,
          model: body.model ?? "bow-embedding",
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    failNext(n = 1) {
      state.failures += n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
