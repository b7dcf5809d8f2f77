"use client";

import { useState } from "react";
import { postStream } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader } from "@/components/ui";
import type { CallPrice, StreamMeta } from "@/components/types";
import { SelectField, StopOrSubmit } from "@/components/form-field";
import { CreditsUsed } from "@/components/credits-used";
import { priceSentence, priceSuffix } from "@/components/call-price";
import { useStreamRun } from "@/components/use-stream-run";
import type { ContentFormOptions } from "@/lib/ai/content/content-templates";

/** Template-based content generation, streamed (POST /api/ai/generate-content). */
export function ContentPanel({ price, options }: { price: CallPrice; options: ContentFormOptions }) {
  const { templates: TEMPLATES, tones, languages, lengths } = options;
  const [templateKey, setTemplateKey] = useState<string>(TEMPLATES[0].key);
  const [values, setValues] = useState<Record<string, Record<string, string>>>({});
  const [tone, setTone] = useState("professional");
  const [language, setLanguage] = useState("en");
  const [length, setLength] = useState("medium");
  const [output, setOutput] = useState("");
  const [copied, setCopied] = useState(false);
  const { streaming, error, setError, meta, setMeta, run, stop } = useStreamRun<StreamMeta>();
  const template = TEMPLATES.find((t) => t.key === templateKey) ?? TEMPLATES[0];
  const current = values[template.key] ?? {};

  async function generate(event: React.FormEvent) {
    event.preventDefault();
    const fields = Object.fromEntries(
      Object.entries(current)
        .map(([k, v]) => [k, v.trim()])
        .filter(([, v]) => v),
    );
    setOutput("");
    setCopied(false);
    await run((signal) =>
      postStream(
        "/api/ai/generate-content",
        { template: template.key, fields, tone, language, length },
        { onText: (t) => setOutput((prev) => prev + t), onMeta: (m) => setMeta(m) },
        signal,
      ),
    );
  }

  return (
    <>
      <PageHeader
        title="Content templates"
        description={`Fill in a template and get ready-to-use text. ${priceSentence(price, "generation")}`.trim()}
      />
      <div className="grid gap-6 lg:grid-cols-[22rem_1fr]">
        <form onSubmit={generate} className="card h-fit space-y-4">
          <SelectField
            id="content-template"
            label="Template"
            value={templateKey}
            onChange={setTemplateKey}
            options={TEMPLATES.map((t) => ({ value: t.key, label: t.label }))}
          />
          {template.fields.map((f) => {
            const id = `content-${template.key}-${f.key}`;
            const props = {
              id,
              className: f.multiline ? "input min-h-20" : "input",
              required: f.required,
              maxLength: 2000,
              placeholder: f.placeholder,
              value: current[f.key] ?? "",
              onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
                setValues((prev) => ({ ...prev, [template.key]: { ...prev[template.key], [f.key]: e.target.value } })),
            };
            return (
              <div key={id}>
                <label htmlFor={id} className="field-label">
                  {f.label}
                  {f.required ? <span className="text-red-600"> *</span> : <span className="font-normal text-slate-400"> (optional)</span>}
                </label>
                {f.multiline ? <textarea {...props} /> : <input type="text" {...props} />}
              </div>
            );
          })}
          <div className="grid grid-cols-2 gap-3">
            <SelectField id="content-tone" label="Tone" value={tone} onChange={setTone} options={tones} />
            <SelectField id="content-language" label="Language" value={language} onChange={setLanguage} options={languages} />
          </div>
          <SelectField id="content-length" label="Length" value={length} onChange={setLength} options={lengths} />
          <StopOrSubmit streaming={streaming} onStop={stop} className="w-full">
            {`Generate${priceSuffix(price)}`}
          </StopOrSubmit>
        </form>
        <section className="card" aria-label="Generated content">
          <ErrorNotice error={error} onDismiss={() => setError(null)} />
          {output ? (
            <>
              <div
                className="whitespace-pre-wrap text-sm leading-relaxed"
                aria-live="polite"
                aria-busy={streaming}
                data-testid="content-output"
              >
                {output}
              </div>
              <div className="mt-4 flex flex-wrap items-center gap-3 border-t border-slate-100 pt-3 text-sm">
                <button
                  type="button"
                  className="btn-secondary"
                  disabled={streaming}
                  onClick={() =>
                    navigator.clipboard?.writeText(output).then(
                      () => setCopied(true),
                      () => setCopied(false),
                    )
                  }
                >
                  {copied ? "Copied" : "Copy"}
                </button>
                <CreditsUsed meta={meta} as="span" className="text-slate-500" />
              </div>
            </>
          ) : streaming ? (
            <p className="text-sm text-slate-500" role="status">
              Writing…
            </p>
          ) : !error ? (
            <EmptyState title="Nothing generated yet">Choose a template, fill in the required fields and press Generate.</EmptyState>
          ) : null}
        </section>
      </div>
    </>
  );
}
