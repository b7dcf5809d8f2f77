import { createHash } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import {
  applyBefore,
  pieces,
  readJson,
  roughTokens,
  sendJson,
  sleep,
  stubControls,
  trackStream,
  listenStub,
  type StubControls,
} from "./stub-kit";

/**
 * A local server speaking the Gemini API (ai.google.dev/api: generateContent, streamGenerateContent,
 * embedContent, batchEmbedContents) on 127.0.0.1, for the Gemini adapter's tests and the benchmark:
 *   POST /v1/models/{model}:generateContent (or /v1beta/)    GenerateContentResponse JSON
 *   POST /v1beta/models/{model}:streamGenerateContent?alt=sse `data: <GenerateContentResponse>` per word,
 *                                                            usageMetadata in every chunk (totals last)
 *   POST /v1beta/models/{model}:embedContent | :batchEmbedContents
 * The key comes in `x-goog-api-key` (or `?key=`). Errors are Google's body `{"error":{"code":429,
 * "message":...,"status":"RESOURCE_EXHAUSTED","details":[RetryInfo]}}`; a refusal is a blocked prompt
 * (`promptFeedback.blockReason: "SAFETY"`, no candidates).
 */
type Endpoint = "generate" | "stream" | "embed";
export interface GeminiStub extends StubControls<Endpoint> {
  url: string;
  close(): Promise<void>;
}

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

type Loose = any;

function lastUserText(body: Loose): string {
  const last = [...(body.contents ?? [])].reverse().find((c: Loose) => c.role === "user" || !c.role);
  return (last?.parts ?? []).map((p: Loose) => p.text ?? (p.inlineData ? "[image]" : "")).join(" ");
}

export async function startGeminiStub(): Promise<GeminiStub> {
  const controls = stubControls<Endpoint>({ generate: "stream" });
  const error = (res: ServerResponse, code: number, message: string, headers: Record<string, string> = {}) => {
    const retry = headers["retry-after"];
    const details = retry ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retry}s` }] : [];
    sendJson(res, code, { error: { code, message, status: STATUS[code] ?? "UNKNOWN", ...(details.length ? { details } : {}) } }, headers);
  };

  const server: Server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const match = /^\/v1(?:beta)?\/models\/([^:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/.exec(
        url.pathname,
      );
      if (req.method !== "POST" || !match) return error(res, 404, `no route ${req.method} ${url.pathname}`);
      if (!req.headers["x-goog-api-key"] && !url.searchParams.get("key"))
        return error(res, 401, "API key not valid. Please pass a valid API key.");
      const [, model, method] = match;
      const body = (await readJson(req)) as Loose;
      const endpoint: Endpoint = method === "streamGenerateContent" ? "stream" : method === "generateContent" ? "generate" : "embed";
      controls.requests.push({ endpoint, path: url.pathname + url.search, headers: req.headers, body });
      const b = controls.behaviourFor(endpoint);
      if (await applyBefore(b, res, (status, message, headers) => error(res, status, message, headers))) return;

      if (endpoint === "embed") {
        const texts: string[] =
          method === "embedContent"
            ? [body.content?.parts?.[0]?.text ?? ""]
            : (body.requests ?? []).map((r: Loose) => r.content?.parts?.[0]?.text ?? "");
        const vectors = texts.map((t) => {
          const h = createHash("sha256").update(t).digest();
          const v = Array.from({ length: 8 }, (_, i) => (h[i] - 127.5) / 127.5);
          const n = Math.hypot(...v) || 1;
          return { values: v.map((x) => x / n) };
        });
        return sendJson(res, 200, method === "embedContent" ? { embedding: vectors[0] } : { embeddings: vectors });
      }

      const prompt = controls.usage?.input ?? roughTokens([body.systemInstruction, body.contents]);
      const text = b?.kind === "reply" ? b.text : `stub reply to: ${lastUserText(body)}`;
      const output = controls.usage?.output ?? pieces(text).length;
      const usage = (candidates: number) => ({
        promptTokenCount: prompt,
        candidatesTokenCount: candidates,
        totalTokenCount: prompt + candidates,
        ...(controls.usage?.cached ? { cachedContentTokenCount: controls.usage.cached } : {}),
      });
      const answer = (t: string, finish: string | null, candidates: number) => ({
        candidates: [{ content: { parts: [{ text: t }], role: "model" }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
        usageMetadata: usage(candidates),
        modelVersion: model,
        responseId: createHash("sha1").update(String(Math.random())).digest("hex").slice(0, 16),
      });
      const blocked = { promptFeedback: { blockReason: "SAFETY", safetyRatings: [] }, usageMetadata: usage(0), modelVersion: model };
      if (endpoint === "generate") return sendJson(res, 200, b?.kind === "refuse" ? blocked : answer(text, "STOP", output));

      res.writeHead(200, { "content-type": "text/event-stream" });
      const stream = trackStream(controls as StubControls<string>, res);
      const data = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\r\n\r\n`);
      if (b?.kind === "refuse") {
        data(blocked);
        stream.finish();
        return res.end();
      }
      const words = pieces(text);
      for (let i = 0; i < words.length; i++) {
        if (b?.kind === "break" && i >= b.afterChunks) {
          stream.cut();
          await sleep(30);
          return res.destroy();
        }
        if (controls.chunkDelayMs > 0) await sleep(controls.chunkDelayMs);
        if (res.destroyed) return;
        const last = i === words.length - 1;
        data(answer(words[i], last ? "STOP" : null, last ? output : i + 1));
      }
      stream.finish();
      res.end();
    } catch (e) {
      if (!res.headersSent) error(res, 500, `stub crashed: ${(e as Error).message}`);
      else res.destroy();
    }
  });
  return listenStub(server, controls);
}
