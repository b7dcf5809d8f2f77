"use client";

import { RadioGroup, TextAreaField } from "@/components/form-field";
import { useRef, useState } from "react";
import { apiJson, apiJsonWithHeaders, toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import type { CallPrice, ChatAnswer, ChatBatchAnswer } from "@/components/types";
import { PageHeader, Spinner } from "@/components/ui";
import { ChatSettings, useChatSettings } from "@/components/chat-settings";

type Mode = "single" | "batch";

interface Prompt {
  id: number;
  text: string;
}

interface SingleResult {
  prompt: string;
  answer: ChatAnswer;
  /** X-Cache of the response; null when the cache was not asked for. */
  cache: "HIT" | "MISS" | null;
}

interface BatchResult {
  prompts: string[];
  answer: ChatBatchAnswer;
}

/**
 * POST /api/ai/chat without streaming: one request (with the optional answer cache) or a batch
 * `{ requests: [...] }` of several prompts run at once, each answer (or per-item error) with its charge.
 */
export function BatchPanel({
  models,
  defaultModel,
  price,
  maxBatch,
  defaultCacheTtl,
  maxCacheTtl,
}: {
  models: string[];
  defaultModel: string;
  price: CallPrice;
  maxBatch: number;
  defaultCacheTtl: number;
  maxCacheTtl: number;
}) {
  const [mode, setMode] = useState<Mode>("single");
  const [prompt, setPrompt] = useState("");
  const [prompts, setPrompts] = useState<Prompt[]>([
    { id: 1, text: "" },
    { id: 2, text: "" },
  ]);
  const nextId = useRef(3);
  const settings = useChatSettings(defaultModel);
  const { model, temperature, systemPrompt } = settings;
  const [cache, setCache] = useState(false);
  const [cacheTtl, setCacheTtl] = useState(String(defaultCacheTtl));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [single, setSingle] = useState<SingleResult | null>(null);
  const [batch, setBatch] = useState<BatchResult | null>(null);

  const ttl = Number(cacheTtl);
  const ttlInvalid = cache && !(Number.isInteger(ttl) && ttl >= 1 && ttl <= maxCacheTtl);
  const filled = prompts.map((p) => p.text.trim()).filter(Boolean);
  const canSend = !busy && !ttlInvalid && (mode === "single" ? Boolean(prompt.trim()) : filled.length > 0);

  function requestBody(text: string) {
    return {
      messages: [{ role: "user", content: text }],
      model,
      temperature,
      ...(systemPrompt.trim() ? { systemPrompt: systemPrompt.trim() } : {}),
      ...(cache ? { cache: true, cacheTTL: ttl } : {}),
    };
  }

  async function send(event: React.FormEvent) {
    event.preventDefault();
    if (!canSend) return;
    setBusy(true);
    setError(null);
    try {
      if (mode === "single") {
        const text = prompt.trim();
        const { data, headers } = await apiJsonWithHeaders<ChatAnswer>("/api/ai/chat", { method: "POST", json: requestBody(text) });
        const hit = headers.get("x-cache")?.toUpperCase();
        setSingle({ prompt: text, answer: data, cache: cache ? (hit === "HIT" ? "HIT" : "MISS") : null });
      } else {
        const answer = await apiJson<ChatBatchAnswer>("/api/ai/chat", { method: "POST", json: { requests: filled.map(requestBody) } });
        setBatch({ prompts: filled, answer });
      }
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  function addPrompt() {
    const id = nextId.current++;
    setPrompts((prev) => (prev.length >= maxBatch ? prev : [...prev, { id, text: "" }]));
  }

  const answered = batch ? batch.answer.results.filter((r) => !("error" in r)).length : 0;

  const modes = [
    { value: "single", label: "Single request" },
    { value: "batch", label: `Batch of prompts (up to ${maxBatch})` },
  ] as const;
  return (
    <>
      <PageHeader
        title="Single / batch chat"
        description={
          typeof price === "number"
            ? `The whole answer at once, without streaming. Each answer costs ${price} credits (also when it comes from the cache); a batch reserves ${price} per prompt and charges only the prompts that were answered.`
            : price === "metered"
              ? "The whole answer at once, without streaming. Each answer is charged by the tokens it used (an answer from the cache by the minimum per call); a batch reserves each prompt's largest possible cost and charges only what was answered."
              : "The whole answer at once, without streaming: one prompt, or a batch of several prompts answered together."
        }
      />
      <div className="grid gap-6 lg:grid-cols-[1fr_16rem]">
        <section className="card space-y-4" aria-label="Request">
          <RadioGroup legend="Mode" name="chat-mode" value={mode} onChange={setMode} options={modes} />
          <form onSubmit={send} className="space-y-3">
            {mode === "single" ? (
              <TextAreaField
                id="single-prompt"
                label="Prompt"
                inputClassName="min-h-24"
                value={prompt}
                onChange={setPrompt}
                placeholder="Ask anything…"
              />
            ) : (
              <>
                {prompts.map((p, i) => (
                  <div key={p.id}>
                    <div className="flex items-end justify-between gap-2">
                      <label htmlFor={`batch-prompt-${p.id}`} className="field-label">
                        Prompt {i + 1}
                      </label>
                      {prompts.length > 1 ? (
                        <button
                          type="button"
                          className="link mb-1 text-sm"
                          aria-label={`Remove prompt ${i + 1}`}
                          onClick={() => setPrompts((prev) => prev.filter((q) => q.id !== p.id))}
                        >
                          Remove
                        </button>
                      ) : null}
                    </div>
                    <textarea
                      id={`batch-prompt-${p.id}`}
                      className="input min-h-16"
                      value={p.text}
                      onChange={(e) => {
                        const text = e.target.value;
                        setPrompts((prev) => prev.map((q) => (q.id === p.id ? { ...q, text } : q)));
                      }}
                    />
                  </div>
                ))}
                <button type="button" className="btn-secondary" onClick={addPrompt} disabled={prompts.length >= maxBatch}>
                  Add prompt
                </button>
              </>
            )}
            <div className="flex flex-wrap items-center justify-between gap-2">
              <p className="text-xs text-slate-500">
                {mode === "batch" && filled.length > 0 && typeof price === "number"
                  ? `Up to ${filled.length * price} credits for ${filled.length} prompt${filled.length === 1 ? "" : "s"}; empty prompts are not sent.`
                  : null}
              </p>
              <button type="submit" className="btn-primary" disabled={!canSend}>
                {mode === "single" ? "Send" : "Send batch"}
              </button>
            </div>
          </form>
          <ErrorNotice error={error} onDismiss={() => setError(null)} />
          {busy ? <Spinner label={mode === "single" ? "Waiting for the answer" : "Waiting for the answers"} /> : null}

          {mode === "single" && single ? (
            <section aria-label="Answer" className="space-y-3 border-t border-slate-100 pt-4" aria-live="polite">
              <p className="text-sm text-slate-500">
                <span className="font-medium text-slate-700">You asked:</span> {single.prompt}
              </p>
              <div className="whitespace-pre-wrap rounded-2xl bg-slate-100 px-4 py-2.5 text-sm text-slate-900" data-testid="single-answer">
                {single.answer.text}
              </div>
              <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-4">
                <div>
                  <dt className="text-xs text-slate-500">Model</dt>
                  <dd>{single.answer.model}</dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-500">Tokens (prompt / answer)</dt>
                  <dd>
                    {single.answer.usage.promptTokens} / {single.answer.usage.completionTokens}
                  </dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-500">Credits charged</dt>
                  <dd data-testid="single-cost">{single.answer.cost}</dd>
                </div>
                <div>
                  <dt className="text-xs text-slate-500">From the cache</dt>
                  <dd data-testid="single-cache">
                    {single.cache === null
                      ? "Cache not used"
                      : single.cache === "HIT"
                        ? "Yes (cached answer)"
                        : "No (new answer, now cached)"}
                  </dd>
                </div>
              </dl>
            </section>
          ) : null}

          {mode === "batch" && batch ? (
            <section aria-label="Answers" className="space-y-3 border-t border-slate-100 pt-4" aria-live="polite">
              <p className="text-sm font-medium text-slate-800" role="status" data-testid="batch-cost">
                {batch.answer.cost} credits charged for {answered} of {batch.prompts.length} answer{batch.prompts.length === 1 ? "" : "s"}
                {answered < batch.prompts.length ? "; failed prompts were not charged" : ""}.
              </p>
              <ol className="space-y-3">
                {batch.answer.results.map((r, i) => (
                  <li key={i} className="rounded-lg border border-slate-200 p-3" data-testid="batch-result">
                    <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Prompt {i + 1}</p>
                    <p className="mt-0.5 text-sm text-slate-600">{batch.prompts[i]}</p>
                    {"error" in r ? (
                      <p className="mt-2 text-sm text-red-700" data-testid="batch-error">
                        Failed: {r.error} (not charged)
                      </p>
                    ) : (
                      <>
                        <div
                          className="mt-2 whitespace-pre-wrap rounded-2xl bg-slate-100 px-4 py-2.5 text-sm text-slate-900"
                          data-testid="batch-answer"
                        >
                          {r.text}
                        </div>
                        <p className="mt-1 text-xs text-slate-500">
                          {r.model} · {r.usage.promptTokens} + {r.usage.completionTokens} tokens · {r.cost} credits
                          {r.cached ? <span data-testid="batch-cached"> · from the cache</span> : null}
                        </p>
                      </>
                    )}
                  </li>
                ))}
              </ol>
            </section>
          ) : null}
        </section>
        <ChatSettings idPrefix="batch" models={models} settings={settings}>
          <div className="space-y-2">
            <label className="inline-flex items-center gap-2 text-sm font-medium text-slate-700">
              <input type="checkbox" checked={cache} onChange={(e) => setCache(e.target.checked)} className="accent-brand-600" />
              Use the answer cache
            </label>
            <p className="text-xs text-slate-500">
              The same request again within the cache lifetime is answered from your own cache, without asking the AI again.
            </p>
            {cache ? (
              <div>
                <label htmlFor="batch-cache-ttl" className="field-label">
                  Cache lifetime (seconds)
                </label>
                <input
                  id="batch-cache-ttl"
                  type="number"
                  min={1}
                  max={maxCacheTtl}
                  step={1}
                  className="input"
                  value={cacheTtl}
                  onChange={(e) => setCacheTtl(e.target.value)}
                  aria-invalid={ttlInvalid}
                  aria-describedby={ttlInvalid ? "batch-cache-ttl-error" : undefined}
                />
                {ttlInvalid ? (
                  <p id="batch-cache-ttl-error" className="mt-1 text-xs text-red-700">
                    A whole number of seconds from 1 to {maxCacheTtl.toLocaleString("en")}.
                  </p>
                ) : null}
              </div>
            ) : null}
          </div>
        </ChatSettings>
      </div>
    </>
  );
}
