"use client";

import Link from "next/link";
import { useState } from "react";
import { apiJson, errorFrom, formatDate, readSse, toApiError } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import type { ConversationDetail, ConversationList, RagSource, RagStreamMeta } from "@/components/types";
import { EmptyState, PageHeader, Spinner } from "@/components/ui";
import { Pending } from "@/components/paged-list";
import { useApi } from "@/components/use-api";
import { StopOrSubmit } from "@/components/form-field";
import { CreditsUsed } from "@/components/credits-used";
import { useStreamRun } from "@/components/use-stream-run";

interface Turn {
  id: string;
  role: string;
  content: string;
  sources?: RagSource[];
  model?: string;
}

/** X-RAG-Sources: base64 of the JSON sources array (UTF-8). */
function decodeSources(header: string | null): RagSource[] {
  if (!header) return [];
  try {
    const bytes = Uint8Array.from(atob(header), (c) => c.charCodeAt(0));
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return Array.isArray(parsed) ? (parsed as RagSource[]) : [];
  } catch {
    return [];
  }
}

function Sources({ sources }: { sources: RagSource[] }) {
  if (!sources.length) return null;
  return (
    <details className="mt-2 text-xs" data-testid="rag-sources">
      <summary className="cursor-pointer font-medium text-slate-600">
        {sources.length} source{sources.length === 1 ? "" : "s"}
      </summary>
      <ol className="mt-2 space-y-2">
        {sources.map((s, i) => (
          <li key={i} className="rounded-md border border-slate-200 bg-white p-2">
            <p className="font-medium text-slate-800">
              {i + 1}. {s.title}{" "}
              <span className="font-normal text-slate-500">
                {s.path ? (
                  `(${s.path})`
                ) : s.fileId ? (
                  <Link className="link" href="/dashboard/files">
                    (your file)
                  </Link>
                ) : null}
              </span>
            </p>
            <p className="mt-1 text-slate-600">{s.excerpt}</p>
          </li>
        ))}
      </ol>
    </details>
  );
}

/** Document question answering: conversations list, streamed answers (POST /api/ai/rag/ask) with their sources. */
export function KnowledgePanel({ creditBased }: { creditBased: boolean }) {
  const [listLimit, setListLimit] = useState(20);
  const list = useApi<ConversationList>(`/api/ai/rag/conversations?limit=${listLimit}&offset=0`);
  const conversations = list.data?.conversations ?? null;
  const hasMore = list.data?.pagination.hasMore ?? false;
  const loadList = list.reload;
  const [activeId, setActiveId] = useState<string | null>(null);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [loadingConversation, setLoadingConversation] = useState(false);
  const [question, setQuestion] = useState("");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const { streaming, error, setError, setMeta, meta, run, stop, reset } = useStreamRun<RagStreamMeta>();

  async function openConversation(id: string) {
    if (streaming) return;
    setActiveId(id);
    reset();
    setConfirmDelete(false);
    setLoadingConversation(true);
    try {
      const detail = await apiJson<ConversationDetail>(`/api/ai/rag/conversations/${encodeURIComponent(id)}`);
      setTurns(detail.messages.map((m) => ({ id: m.id, role: m.role, content: m.content, sources: m.sources, model: m.model })));
    } catch (e) {
      setError(toApiError(e));
      setTurns([]);
    } finally {
      setLoadingConversation(false);
    }
  }

  function newConversation() {
    stop();
    setActiveId(null);
    setTurns([]);
    reset();
    setConfirmDelete(false);
  }

  async function deleteConversation() {
    if (!activeId) return;
    try {
      await apiJson(`/api/ai/rag/conversations?id=${encodeURIComponent(activeId)}`, { method: "DELETE" });
      newConversation();
      await loadList();
    } catch (e) {
      setError(toApiError(e));
    }
  }

  async function ask(event: React.FormEvent) {
    event.preventDefault();
    const q = question.trim();
    if (!q || streaming) return;
    const before = turns;
    setTurns([...before, { id: `q-${Date.now()}`, role: "user", content: q }, { id: `a-${Date.now()}`, role: "assistant", content: "" }]);
    setQuestion("");
    const updateAnswer = (patch: (t: Turn) => Turn) =>
      setTurns((prev) => {
        const next = prev.slice();
        next[next.length - 1] = patch(next[next.length - 1]);
        return next;
      });
    await run(
      async (signal, received) => {
        let res: Response;
        try {
          res = await fetch("/api/ai/rag/ask", {
            method: "POST",
            credentials: "same-origin",
            headers: { "content-type": "application/json", accept: "text/event-stream" },
            body: JSON.stringify({ question: q, stream: true, ...(activeId ? { conversationId: activeId } : {}) }),
            signal,
          });
        } catch (e) {
          throw toApiError(e);
        }
        if (!res.ok) throw await errorFrom(res);
        const sources = decodeSources(res.headers.get("x-rag-sources"));
        const conversationId = res.headers.get("x-rag-conversation-id");
        updateAnswer((t) => ({ ...t, sources }));
        if (conversationId) setActiveId(conversationId);
        await readSse(res, {
          onText: (text) => {
            received();
            updateAnswer((t) => ({ ...t, content: t.content + text }));
          },
          onMeta: (m) => setMeta(m as RagStreamMeta),
        });
        await loadList();
      },
      (stopped) => {
        setTurns(before);
        if (!stopped) setQuestion(q);
      },
    );
  }

  return (
    <>
      <PageHeader
        title="Knowledge"
        description={
          <>
            Ask questions about the service&apos;s documentation and your own{" "}
            <Link className="link" href="/dashboard/files">
              uploaded documents
            </Link>{" "}
            (text, Markdown, CSV, JSON, PDF). Answers cite their sources.
            {creditBased ? " Each question costs 10 to 20 credits, depending on how much context it needs." : ""}
          </>
        }
      />
      <div className="grid gap-6 lg:grid-cols-[18rem_1fr]">
        <aside className="card h-fit" aria-labelledby="conversations-heading">
          <div className="flex items-center justify-between gap-2">
            <h2 id="conversations-heading" className="text-base">
              Conversations
            </h2>
            <button type="button" className="btn-secondary px-2.5 py-1" onClick={newConversation}>
              New
            </button>
          </div>
          <div className="mt-3">
            {conversations === null ? <Pending resource={list} /> : <ErrorNotice error={list.error} />}
            {conversations && conversations.length === 0 ? (
              <p className="text-sm text-slate-500">No conversations yet. Ask your first question.</p>
            ) : null}
            <ul className="space-y-1" data-testid="conversation-list">
              {conversations?.map((c) => (
                <li key={c.id}>
                  <button
                    type="button"
                    onClick={() => void openConversation(c.id)}
                    aria-current={c.id === activeId ? "true" : undefined}
                    className={`w-full rounded-md px-3 py-2 text-left text-sm ${c.id === activeId ? "bg-brand-50 text-brand-700" : "hover:bg-slate-100"}`}
                  >
                    <span className="block truncate font-medium">{c.title}</span>
                    <span className="block text-xs text-slate-500">
                      {c.messageCount} messages · {formatDate(c.updatedAt ?? c.createdAt)}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
            {hasMore ? (
              <button type="button" className="link mt-2 text-sm" onClick={() => setListLimit(100)}>
                Show more
              </button>
            ) : null}
          </div>
        </aside>
        <section className="card flex min-h-[28rem] flex-col" aria-label="Conversation">
          {activeId && !streaming ? (
            <div className="mb-3 flex justify-end gap-2">
              {confirmDelete ? (
                <>
                  <span className="self-center text-sm text-slate-600">Delete this conversation?</span>
                  <button type="button" className="btn-danger" onClick={() => void deleteConversation()}>
                    Delete
                  </button>
                  <button type="button" className="btn-secondary" onClick={() => setConfirmDelete(false)}>
                    Keep
                  </button>
                </>
              ) : (
                <button type="button" className="btn-secondary" onClick={() => setConfirmDelete(true)}>
                  Delete conversation
                </button>
              )}
            </div>
          ) : null}
          <div className="flex-1 space-y-4" aria-live="polite" aria-busy={streaming || loadingConversation} data-testid="rag-log">
            {loadingConversation ? <Spinner label="Loading the conversation" /> : null}
            {!loadingConversation && turns.length === 0 ? (
              <EmptyState title="Ask a question">
                For example: “How do bonus credits expire?” or a question about a document you uploaded.
              </EmptyState>
            ) : null}
            {turns.map((t, i) => (
              <div key={t.id} className={`flex ${t.role === "user" ? "justify-end" : "justify-start"}`}>
                <div
                  className={`max-w-[85%] rounded-2xl px-4 py-2.5 text-sm ${t.role === "user" ? "bg-brand-600 text-white" : "bg-slate-100 text-slate-900"}`}
                  data-testid={t.role === "user" ? "rag-question" : "rag-answer"}
                >
                  <span className="sr-only">{t.role === "user" ? "You: " : "Answer: "}</span>
                  <div className="whitespace-pre-wrap">
                    {t.content ||
                      (streaming && i === turns.length - 1 ? <span className="animate-pulse">Searching the documents…</span> : null)}
                  </div>
                  {t.role === "assistant" && t.sources ? <Sources sources={t.sources} /> : null}
                </div>
              </div>
            ))}
          </div>
          {creditBased ? <CreditsUsed meta={meta} /> : null}
          <div className="mt-3">
            <ErrorNotice error={error} onDismiss={() => setError(null)} />
          </div>
          <form onSubmit={ask} className="mt-2 flex flex-col gap-2 sm:flex-row">
            <label htmlFor="rag-question" className="sr-only">
              Question
            </label>
            <input
              id="rag-question"
              className="input flex-1"
              maxLength={4000}
              value={question}
              onChange={(e) => setQuestion(e.target.value)}
              placeholder={activeId ? "Ask a follow-up question" : "Ask a question about the documents"}
            />
            <StopOrSubmit streaming={streaming} onStop={stop} disabled={!question.trim()}>
              Ask
            </StopOrSubmit>
          </form>
        </section>
      </div>
    </>
  );
}
