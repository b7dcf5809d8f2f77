"use client";

import Link from "next/link";
import { useRef, useState } from "react";
import { ApiError, apiJson, formatBytes, formatDate, retryAtFrom, toApiError, type ApiErrorCode } from "@/components/api";
import { ConfirmButtons } from "@/components/confirm-buttons";
import { ErrorNotice } from "@/components/error-notice";
import type { FileList, FileRecord } from "@/components/types";
import { Banner, EmptyState, PageHeader, Spinner } from "@/components/ui";
import { LIST_PAGE_SIZE, OffsetPager } from "@/components/paged-list";
import { useApi } from "@/components/use-api";

/** Browsers leave `type` empty for some text formats: derive it from the extension. */
const BY_EXTENSION: Record<string, string> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  pdf: "application/pdf",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  wav: "audio/wav",
  mp3: "audio/mpeg",
  ogg: "audio/ogg",
  webm: "audio/webm",
  flac: "audio/flac",
  m4a: "audio/mp4",
};

function typeOf(file: File): string {
  const ext = file.name.split(".").pop()?.toLowerCase() ?? "";
  return file.type || BY_EXTENSION[ext] || "application/octet-stream";
}

interface Upload {
  name: string;
  loaded: number;
  total: number;
}

/** Raw-body upload (POST /api/upload) with XMLHttpRequest so the progress bar follows the bytes sent. */
function uploadFile(
  file: File,
  onProgress: (loaded: number, total: number) => void,
  xhrRef: { current: XMLHttpRequest | null },
): Promise<FileRecord> {
  return new Promise((resolve, reject) => {
    const params = new URLSearchParams({ filename: file.name, filesize: String(file.size), filetype: typeOf(file) });
    const xhr = new XMLHttpRequest();
    xhrRef.current = xhr;
    xhr.open("POST", `/api/upload?${params}`);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: { error?: string; code?: ApiErrorCode } & Partial<FileRecord> = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as FileRecord);
      else {
        const headers = new Headers();
        for (const name of ["retry-after", "x-ratelimit-reset"]) {
          const v = xhr.getResponseHeader(name);
          if (v) headers.set(name, v);
        }
        reject(
          new ApiError(xhr.status, body.error ?? `Upload failed with status ${xhr.status}`, {
            code: body.code,
            retryAt: xhr.status === 429 ? retryAtFrom(headers) : null,
          }),
        );
      }
    };
    xhr.onerror = () => reject(new ApiError(0, "Could not reach the server: the upload was interrupted"));
    xhr.onabort = () => reject(new ApiError(0, "Upload cancelled"));
    xhr.send(file);
  });
}

export function FilesPanel({ allowedTypes, maxBytes, ragEnabled }: { allowedTypes: string[]; maxBytes: number; ragEnabled: boolean }) {
  const [offset, setOffset] = useState(0);
  const list = useApi<FileList>(`/api/files?limit=${LIST_PAGE_SIZE}&offset=${offset}`);
  const files = list.data?.files ?? (list.error ? [] : null);
  const total = list.data?.pagination.total ?? 0;
  const [actionError, setError] = useState<ApiError | null>(null);
  const error = actionError ?? list.error;
  const [upload, setUpload] = useState<Upload | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const xhrRef = useRef<XMLHttpRequest | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  /** Shows the given page: a new offset loads through useApi, the same one is fetched again. */
  async function showPage(at: number) {
    if (at !== offset) setOffset(at);
    else await list.reload();
  }

  async function start(file: File | undefined) {
    if (!file) return;
    setError(null);
    setNotice(null);
    if (file.size > maxBytes) {
      setError(
        new ApiError(413, `${file.name} is ${formatBytes(file.size)}; files can be at most ${formatBytes(maxBytes)}.`, {
          code: "payload_too_large",
        }),
      );
      return;
    }
    if (file.size === 0) {
      setError(new ApiError(400, `${file.name} is empty.`, { code: "validation_failed" }));
      return;
    }
    setUpload({ name: file.name, loaded: 0, total: file.size });
    try {
      const record = await uploadFile(file, (loaded, totalBytes) => setUpload({ name: file.name, loaded, total: totalBytes }), xhrRef);
      await showPage(0);
      setNotice(`Uploaded ${record.originalName}.`);
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setUpload(null);
      xhrRef.current = null;
      if (inputRef.current) inputRef.current.value = "";
    }
  }

  async function remove(file: FileRecord) {
    setDeleting(file.id);
    setError(null);
    setNotice(null);
    try {
      await apiJson(`/api/files/${encodeURIComponent(file.id)}`, { method: "DELETE" });
      await showPage(files && files.length === 1 && offset > 0 ? offset - LIST_PAGE_SIZE : offset);
      setNotice(`Deleted ${file.originalName}.`);
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setDeleting(null);
      setConfirmDelete(null);
    }
  }

  /** Opens the file through a fresh short-lived address (GET /api/files/{id}). */
  async function open(file: FileRecord) {
    setError(null);
    try {
      const fresh = await apiJson<FileRecord>(`/api/files/${encodeURIComponent(file.id)}`);
      window.open(fresh.url, "_blank", "noopener");
    } catch (e) {
      setError(toApiError(e));
    }
  }

  const pct = upload && upload.total > 0 ? Math.round((upload.loaded / upload.total) * 100) : 0;

  return (
    <>
      <PageHeader
        title="Files"
        description={
          <>
            Private to you; download links are short-lived. Up to {formatBytes(maxBytes)} per file.
            {ragEnabled ? (
              <>
                {" "}
                Text, Markdown, CSV, JSON and PDF files can be asked about in{" "}
                <Link className="link" href="/dashboard/knowledge">
                  Knowledge
                </Link>
                .
              </>
            ) : null}
          </>
        }
      />
      <section className="card mb-6" aria-labelledby="upload-heading">
        <h2 id="upload-heading">Upload a file</h2>
        <p className="mt-1 text-xs text-slate-500">
          Accepted: images (PNG, JPEG, GIF, WebP), PDF, text, Markdown, CSV, JSON and audio files.
        </p>
        <div className="mt-3 flex flex-wrap items-center gap-3">
          <label htmlFor="file-input" className="sr-only">
            File to upload
          </label>
          <input
            ref={inputRef}
            id="file-input"
            type="file"
            accept={[...allowedTypes, ".md", ".markdown", ".csv", ".json", ".txt"].join(",")}
            disabled={upload !== null}
            onChange={(e) => void start(e.target.files?.[0])}
            className="block text-sm file:mr-3 file:rounded-md file:border-0 file:bg-brand-600 file:px-3.5 file:py-2 file:text-sm file:font-medium file:text-white hover:file:bg-brand-700"
          />
          {upload ? (
            <button type="button" className="btn-secondary" onClick={() => xhrRef.current?.abort()}>
              Cancel upload
            </button>
          ) : null}
        </div>
        {upload ? (
          <div className="mt-4" aria-live="polite">
            <div className="mb-1 flex justify-between text-sm">
              <span className="truncate">Uploading {upload.name}</span>
              <span className="tabular-nums">
                {pct}% · {formatBytes(upload.loaded)} of {formatBytes(upload.total)}
              </span>
            </div>
            <progress
              className="h-2 w-full overflow-hidden rounded-full [&::-webkit-progress-bar]:bg-slate-200 [&::-webkit-progress-value]:bg-brand-600"
              max={100}
              value={pct}
              aria-label={`Upload progress of ${upload.name}`}
            >
              {pct}%
            </progress>
          </div>
        ) : null}
      </section>
      {notice ? <Banner tone="success">{notice}</Banner> : null}
      <ErrorNotice error={error} onDismiss={actionError ? () => setError(null) : undefined} />
      <section className="card" aria-labelledby="files-heading">
        <h2 id="files-heading">Your files{total ? ` (${total})` : ""}</h2>
        <div className="mt-4">
          {files === null ? <Spinner label="Loading files" /> : null}
          {files && files.length === 0 ? <EmptyState title="No files yet">Upload a file to see it here.</EmptyState> : null}
          {files && files.length > 0 ? (
            <ul className="divide-y divide-slate-100" data-testid="file-list">
              {files.map((f) => (
                <li key={f.id} className="flex flex-wrap items-center justify-between gap-3 py-3" data-testid="file-row">
                  <div className="min-w-0">
                    <p className="truncate font-medium">{f.originalName}</p>
                    <p className="text-xs text-slate-500">
                      {f.contentType} · {formatBytes(f.size)} · {formatDate(f.createdAt, true)}
                    </p>
                  </div>
                  <div className="flex gap-2">
                    <button type="button" className="btn-secondary" onClick={() => void open(f)}>
                      Open<span className="sr-only"> {f.originalName}</span>
                    </button>
                    {confirmDelete === f.id ? (
                      <ConfirmButtons
                        confirmLabel="Confirm delete"
                        busyLabel="Deleting…"
                        busy={deleting === f.id}
                        disabled={deleting !== null}
                        onConfirm={() => void remove(f)}
                        onKeep={() => setConfirmDelete(null)}
                      />
                    ) : (
                      <button type="button" className="btn-danger" onClick={() => setConfirmDelete(f.id)}>
                        Delete<span className="sr-only"> {f.originalName}</span>
                      </button>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
        <OffsetPager
          offset={offset}
          total={total}
          onChange={setOffset}
          label="File pages"
          position={`${offset + 1}–${Math.min(offset + LIST_PAGE_SIZE, total)} of ${total}`}
        />
      </section>
    </>
  );
}
