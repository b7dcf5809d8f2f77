"use client";

import { useId, useState, type FormEvent, type ReactNode } from "react";
import { toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { Spinner } from "@/components/ui";

/**
 * An operator write in two steps: the fields and a required reason, then a review of exactly what will
 * happen with a Confirm button (no accidental clicks; Escape-free, keyboard only). `summary` describes
 * the action from the current values; `run` performs it with the reason.
 */
export function ConfirmForm({
  title,
  fields,
  summary,
  confirmLabel,
  danger,
  canReview = true,
  run,
  onDone,
}: {
  title: string;
  fields?: ReactNode;
  summary: string;
  confirmLabel: string;
  danger?: boolean;
  canReview?: boolean;
  run: (reason: string) => Promise<string>;
  onDone?: () => void;
}) {
  const id = useId();
  const [reason, setReason] = useState("");
  const [reviewing, setReviewing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [result, setResult] = useState<string | null>(null);

  function review(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setResult(null);
    setReviewing(true);
  }

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      setResult(await run(reason.trim()));
      setReviewing(false);
      setReason("");
      onDone?.();
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="space-y-3" onSubmit={review} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} className="font-semibold">
        {title}
      </h3>
      {fields}
      <div>
        <label htmlFor={`${id}-reason`} className="field-label">
          Reason (recorded in the audit log)
        </label>
        <textarea
          id={`${id}-reason`}
          className="input"
          rows={2}
          required
          minLength={3}
          maxLength={500}
          value={reason}
          disabled={reviewing}
          onChange={(e) => setReason(e.target.value)}
          placeholder="e.g. Support ticket #1234: paid, no credits"
        />
      </div>
      {!reviewing ? (
        <button type="submit" className="btn-secondary" disabled={!canReview || reason.trim().length < 3}>
          Review
        </button>
      ) : (
        <div className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm" role="group" aria-label="Confirm">
          <p className="font-medium">{summary}</p>
          <p className="mt-1 text-slate-600">Reason: {reason.trim()}</p>
          <div className="mt-3 flex gap-2">
            <button type="button" className={danger ? "btn-danger" : "btn-primary"} onClick={confirm} disabled={busy} autoFocus>
              {busy ? <Spinner label="Working" /> : confirmLabel}
            </button>
            <button type="button" className="btn-secondary" onClick={() => setReviewing(false)} disabled={busy}>
              Back
            </button>
          </div>
        </div>
      )}
      {error ? <ErrorNotice error={error} /> : null}
      {result ? (
        <p className="text-sm text-emerald-700" role="status">
          {result}
        </p>
      ) : null}
    </form>
  );
}
