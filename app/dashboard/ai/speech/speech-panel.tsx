"use client";

import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { errorFrom, toApiError, type ApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader, Spinner } from "@/components/ui";
import type { CallPrice, Transcript } from "@/components/types";
import { priceSentence, priceSuffix } from "@/components/call-price";
import { SelectField } from "@/components/form-field";

const ACCEPT = ".webm,.wav,.mp3,.m4a,.mp4,.ogg,.oga,.opus,.flac,audio/*";
const MAX_BYTES = 25 * 1024 * 1024;

const noSubscription = () => () => {};
/** Whether this browser can record (MediaRecorder + getUserMedia, secure context); never during SSR. */
const browserCanRecord = () => typeof window.MediaRecorder !== "undefined" && !!navigator.mediaDevices?.getUserMedia;

/** Speech to text (POST /api/ai/speech-to-text, multipart field `audio`) by recording or upload. */
export function SpeechPanel({ price, languages }: { price: CallPrice; languages: { value: string; label: string }[] }) {
  const [audio, setAudio] = useState<{ blob: Blob; name: string; url: string } | null>(null);
  const [language, setLanguage] = useState("");
  const [recording, setRecording] = useState(false);
  const [seconds, setSeconds] = useState(0);
  const [micError, setMicError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [result, setResult] = useState<Transcript | null>(null);
  const recorderRef = useRef<MediaRecorder | null>(null);
  const timerRef = useRef<ReturnType<typeof setInterval> | null>(null);
  // The server renders "cannot record"; the browser's answer replaces it after hydration (no mismatch).
  const canRecord = useSyncExternalStore(noSubscription, browserCanRecord, () => false);

  useEffect(
    () => () => {
      if (timerRef.current) clearInterval(timerRef.current);
      recorderRef.current?.stream.getTracks().forEach((t) => t.stop());
    },
    [],
  );

  function choose(blob: Blob, name: string) {
    if (audio) URL.revokeObjectURL(audio.url);
    setAudio({ blob, name, url: URL.createObjectURL(blob) });
    setResult(null);
    setError(null);
  }

  async function startRecording() {
    setMicError(null);
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const type = ["audio/webm;codecs=opus", "audio/webm", "audio/ogg;codecs=opus"].find((t) => MediaRecorder.isTypeSupported(t)) ?? "";
      const recorder = new MediaRecorder(stream, type ? { mimeType: type } : undefined);
      const chunks: Blob[] = [];
      recorder.ondataavailable = (e) => e.data.size && chunks.push(e.data);
      recorder.onstop = () => {
        stream.getTracks().forEach((t) => t.stop());
        const mime = recorder.mimeType || "audio/webm";
        choose(new Blob(chunks, { type: mime }), mime.includes("ogg") ? "recording.ogg" : "recording.webm");
      };
      recorder.start();
      recorderRef.current = recorder;
      setRecording(true);
      setSeconds(0);
      timerRef.current = setInterval(() => setSeconds((s) => s + 1), 1000);
    } catch {
      setMicError("The microphone could not be used. Allow microphone access in your browser, or upload a file instead.");
    }
  }

  function stopRecording() {
    recorderRef.current?.stop();
    recorderRef.current = null;
    setRecording(false);
    if (timerRef.current) clearInterval(timerRef.current);
  }

  async function transcribe() {
    if (!audio) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const form = new FormData();
      form.append("audio", audio.blob, audio.name);
      if (language) form.append("language", language);
      const res = await fetch("/api/ai/speech-to-text", { method: "POST", body: form, credentials: "same-origin" });
      if (!res.ok) throw await errorFrom(res);
      setResult((await res.json()) as Transcript);
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  const tooLarge = audio ? audio.blob.size > MAX_BYTES : false;

  return (
    <>
      <PageHeader
        title="Speech to text"
        description={`Record with your microphone or upload WebM, WAV, MP3, M4A, OGG or FLAC (up to 25 MB). ${priceSentence(price, "transcription")}`.trim()}
      />
      <div className="grid gap-6 lg:grid-cols-2">
        <section className="card space-y-5" aria-label="Audio">
          <div>
            <h2 className="text-base">Record</h2>
            {canRecord ? (
              <div className="mt-2 flex items-center gap-3">
                {recording ? (
                  <button type="button" className="btn-danger" onClick={stopRecording}>
                    ■ Stop recording
                  </button>
                ) : (
                  <button type="button" className="btn-secondary" onClick={startRecording} disabled={busy}>
                    ● Start recording
                  </button>
                )}
                {recording ? (
                  <span className="text-sm text-red-700" role="status">
                    Recording… {seconds}s
                  </span>
                ) : null}
              </div>
            ) : (
              <p className="mt-2 text-sm text-slate-600">This browser cannot record audio; upload a file instead.</p>
            )}
            {micError ? (
              <p role="alert" className="mt-2 text-sm text-red-700">
                {micError}
              </p>
            ) : null}
          </div>
          <div>
            <label htmlFor="speech-file" className="text-base font-semibold">
              Or upload a file
            </label>
            <input
              id="speech-file"
              type="file"
              accept={ACCEPT}
              className="mt-2 block w-full text-sm file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium hover:file:bg-slate-100"
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file) choose(file, file.name);
              }}
            />
          </div>
          {audio ? (
            <div className="rounded-md border border-slate-200 bg-slate-50 p-3">
              <p className="mb-2 truncate text-sm font-medium">{audio.name}</p>
              <audio controls src={audio.url} className="w-full" />
              {tooLarge ? (
                <p role="alert" className="mt-2 text-sm text-red-700">
                  This file is larger than 25 MB.
                </p>
              ) : null}
            </div>
          ) : null}
          <SelectField id="speech-language" label="Spoken language" value={language} onChange={setLanguage} options={languages} />
          <button type="button" className="btn-primary w-full" onClick={transcribe} disabled={!audio || busy || recording || tooLarge}>
            {busy ? "Transcribing…" : `Transcribe${priceSuffix(price)}`}
          </button>
        </section>
        <section className="card" aria-live="polite" aria-busy={busy} aria-label="Transcript">
          <h2 className="text-base">Transcript</h2>
          <div className="mt-3">
            <ErrorNotice error={error} onDismiss={() => setError(null)} />
            {busy ? <Spinner label="Transcribing" /> : null}
            {result ? (
              <>
                <p className="whitespace-pre-wrap text-sm leading-relaxed" data-testid="transcript">
                  {result.text}
                </p>
                <p className="mt-3 text-xs text-slate-500">
                  Language: {result.language} · Duration: {result.duration > 0 ? `${result.duration.toFixed(1)} s` : "unknown"}
                </p>
              </>
            ) : !busy && !error ? (
              <EmptyState title="No transcript yet">Record or choose an audio file, then press Transcribe.</EmptyState>
            ) : null}
          </div>
        </section>
      </div>
    </>
  );
}
