"use client";

import { useState } from "react";
import { apiJson, toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader, Spinner } from "@/components/ui";
import type { CallPrice, ImageResult } from "@/components/types";
import { priceSentence, priceSuffix } from "@/components/call-price";
import { SelectField, TextAreaField } from "@/components/form-field";

const MODELS = ["image-model-1", "image-model-1.5", "image-model-1-mini"];
const SIZES = [
  { value: "1024x1024", label: "Square (1024×1024)" },
  { value: "1536x1024", label: "Landscape (1536×1024)" },
  { value: "1024x1536", label: "Portrait (1024×1536)" },
  { value: "auto", label: "Automatic" },
];
const QUALITIES = ["auto", "low", "medium", "high"];
const FORMATS = ["png", "jpeg", "webp"];

const plain = (values: string[]) => values.map((v) => ({ value: v, label: v[0].toUpperCase() + v.slice(1) }));

/** POST /api/ai/image-gen with every option of SPEC §4.4. */
export function ImagePanel({ price }: { price: CallPrice }) {
  const [prompt, setPrompt] = useState("");
  const [model, setModel] = useState("image-model-1");
  const [size, setSize] = useState("1024x1024");
  const [quality, setQuality] = useState("auto");
  const [format, setFormat] = useState("png");
  const [background, setBackground] = useState("opaque");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [result, setResult] = useState<ImageResult | null>(null);
  const conflict = background === "transparent" && format === "jpeg";

  async function generate(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setResult(
        await apiJson<ImageResult>("/api/ai/image-gen", {
          method: "POST",
          json: { prompt: prompt.trim(), model, size, quality, output_format: format, background },
        }),
      );
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <PageHeader title="Image generation" description={`${priceSentence(price, "image")} Generation can take up to a minute.`.trim()} />
      <div className="grid gap-6 lg:grid-cols-[22rem_1fr]">
        <form onSubmit={generate} className="card h-fit space-y-4">
          <TextAreaField
            id="image-prompt"
            label="Prompt"
            inputClassName="min-h-28"
            required
            maxLength={4000}
            value={prompt}
            onChange={setPrompt}
            placeholder="A watercolor lighthouse at dawn"
            aria-describedby="image-prompt-count"
            hint={<span id="image-prompt-count">{prompt.length} / 4000 characters</span>}
          />
          <SelectField
            id="image-model"
            label="Model"
            value={model}
            onChange={setModel}
            options={MODELS.map((m) => ({ value: m, label: m }))}
          />
          <SelectField id="image-size" label="Size" value={size} onChange={setSize} options={SIZES} />
          <div className="grid grid-cols-2 gap-3">
            <SelectField id="image-quality" label="Quality" value={quality} onChange={setQuality} options={plain(QUALITIES)} />
            <SelectField
              id="image-format"
              label="Format"
              value={format}
              onChange={setFormat}
              options={FORMATS.map((f) => ({ value: f, label: f.toUpperCase() }))}
            />
          </div>
          <fieldset>
            <legend className="field-label">Background</legend>
            <div className="flex gap-4 text-sm">
              {["opaque", "transparent"].map((b) => (
                <label key={b} className="inline-flex items-center gap-2">
                  <input
                    type="radio"
                    name="background"
                    value={b}
                    checked={background === b}
                    onChange={() => setBackground(b)}
                    className="accent-brand-600"
                  />
                  {b[0].toUpperCase() + b.slice(1)}
                </label>
              ))}
            </div>
          </fieldset>
          {conflict ? (
            <p role="alert" className="text-sm text-amber-800">
              JPEG cannot have a transparent background: choose PNG or WebP, or an opaque background.
            </p>
          ) : null}
          <button type="submit" className="btn-primary w-full" disabled={busy || !prompt.trim() || conflict}>
            {busy ? "Generating…" : `Generate${priceSuffix(price)}`}
          </button>
        </form>
        <section className="card" aria-live="polite" aria-busy={busy} aria-label="Generated image">
          <ErrorNotice error={error} onDismiss={() => setError(null)} />
          {busy ? (
            <div className="flex min-h-64 items-center justify-center">
              <Spinner label="Generating your image" />
            </div>
          ) : result ? (
            <figure>
              {/* eslint-disable-next-line @next/next/no-img-element */}
              <img
                src={result.image}
                alt={result.revised_prompt}
                className="mx-auto max-h-[32rem] rounded-lg border border-slate-200 bg-[repeating-conic-gradient(#f1f5f9_0_25%,#fff_0_50%)] bg-[length:20px_20px]"
                data-testid="generated-image"
              />
              <figcaption className="mt-3 space-y-1 text-sm text-slate-600">
                <p>
                  <span className="font-medium text-slate-800">Prompt used:</span> {result.revised_prompt}
                </p>
                <p>
                  {result.model} · {result.size} · {result.quality} quality · {result.format.toUpperCase()}
                  {price !== null
                    ? ` · ${result.credits_used} credits used, ${result.credits_remaining.toLocaleString("en")} remaining`
                    : ""}
                </p>
                <a className="link" href={result.image} download={`image.${result.format}`}>
                  Download
                </a>
              </figcaption>
            </figure>
          ) : !error ? (
            <EmptyState title="No image yet">Describe what you want to see and choose the options.</EmptyState>
          ) : null}
        </section>
      </div>
    </>
  );
}
