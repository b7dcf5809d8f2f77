"use client";

import { useEffect, useRef, useState } from "react";
import { postStream } from "@/components/api";
import { ErrorNotice } from "@/components/error-notice";
import { EmptyState, PageHeader } from "@/components/ui";
import { ChatSettings, useChatSettings } from "@/components/chat-settings";
import type { CallPrice, StreamMeta } from "@/components/types";
import { priceSentence } from "@/components/call-price";
import { StopOrSubmit } from "@/components/form-field";
import { CreditsUsed } from "@/components/credits-used";
import { useStreamRun } from "@/components/use-stream-run";

interface Message {
  role: "user" | "assistant";
  text: string;
  image?: string;
}

const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

function readDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("could not read the file"));
    reader.readAsDataURL(file);
  });
}

/** Streaming chat (POST /api/ai/stream) with an optional image attachment per message. */
export function ChatPanel({
  models,
  defaultModel,
  priceText,
  priceImage,
}: {
  models: string[];
  defaultModel: string;
  priceText: CallPrice;
  priceImage: CallPrice;
}) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [input, setInput] = useState("");
  const [image, setImage] = useState<{ name: string; dataUrl: string } | null>(null);
  const [imageError, setImageError] = useState<string | null>(null);
  const settings = useChatSettings(defaultModel);
  const { model, temperature, systemPrompt } = settings;
  const { streaming, error, setError, meta, setMeta, run, stop, reset } = useStreamRun<StreamMeta>();
  const fileRef = useRef<HTMLInputElement>(null);
  const endRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: "end" });
  }, [messages]);

  async function attach(file: File | undefined) {
    setImageError(null);
    if (!file) return;
    if (!IMAGE_TYPES.includes(file.type)) {
      setImageError("Attach a PNG, JPEG, GIF or WebP image.");
    } else if (file.size > MAX_IMAGE_BYTES) {
      setImageError("Images can be at most 5 MB.");
    } else {
      setImage({ name: file.name, dataUrl: await readDataUrl(file) });
    }
    if (fileRef.current) fileRef.current.value = "";
  }

  async function send(event: React.FormEvent) {
    event.preventDefault();
    const text = input.trim();
    if (!text || streaming) return;
    const userMessage: Message = { role: "user", text, image: image?.dataUrl };
    const history = [...messages, userMessage];
    setMessages([...history, { role: "assistant", text: "" }]);
    setInput("");
    setImage(null);
    await run(
      (signal, received) =>
        postStream(
          "/api/ai/stream",
          {
            messages: history.map((m) =>
              m.image
                ? {
                    role: m.role,
                    content: [
                      { type: "text", text: m.text },
                      { type: "image", image: m.image },
                    ],
                  }
                : { role: m.role, content: m.text },
            ),
            model,
            temperature,
            ...(systemPrompt.trim() ? { systemPrompt: systemPrompt.trim() } : {}),
          },
          {
            onText: (chunk) => {
              received();
              setMessages((prev) => {
                const next = prev.slice();
                const last = next[next.length - 1];
                next[next.length - 1] = { ...last, text: last.text + chunk };
                return next;
              });
            },
            onMeta: (m) => setMeta(m),
          },
          signal,
        ),
      (stopped) => {
        // Nothing was answered: drop the empty bubble, and after a refusal keep the question to resend.
        setMessages(stopped ? [...history] : messages);
        if (!stopped) {
          setInput(text);
          if (userMessage.image) setImage({ name: "attached image", dataUrl: userMessage.image });
        }
      },
    );
  }

  return (
    <>
      <PageHeader
        title="Chat"
        description={
          typeof priceText === "number"
            ? `Each message costs ${priceText} credits, or ${priceImage} when the conversation includes an image.`
            : `Chat with the AI; streamed answers appear as they are written. ${priceSentence(priceText, "message")}`.trim()
        }
        actions={
          messages.length > 0 ? (
            <button
              type="button"
              className="btn-secondary"
              disabled={streaming}
              onClick={() => {
                setMessages([]);
                reset();
              }}
            >
              New chat
            </button>
          ) : null
        }
      />
      <div className="grid gap-6 lg:grid-cols-[1fr_16rem]">
        <section className="card flex min-h-[28rem] flex-col" aria-label="Conversation">
          <div className="flex-1 space-y-4 overflow-y-auto" aria-live="polite" aria-busy={streaming} data-testid="chat-log">
            {messages.length === 0 ? (
              <EmptyState title="Start a conversation">Ask anything, or attach an image and ask about it.</EmptyState>
            ) : null}
            {messages.map((m, i) => (
              <div key={i} className={`flex ${m.role === "user" ? "justify-end" : "justify-start"}`}>
                <div
                  className={`max-w-[85%] whitespace-pre-wrap rounded-2xl px-4 py-2.5 text-sm ${
                    m.role === "user" ? "bg-brand-600 text-white" : "bg-slate-100 text-slate-900"
                  }`}
                  data-testid={m.role === "assistant" ? "assistant-message" : "user-message"}
                >
                  <span className="sr-only">{m.role === "user" ? "You: " : "Assistant: "}</span>
                  {m.image ? (
                    // eslint-disable-next-line @next/next/no-img-element
                    <img src={m.image} alt="Attached image" className="mb-2 max-h-48 rounded-lg" />
                  ) : null}
                  {m.text || (streaming && i === messages.length - 1 ? <span className="animate-pulse">…</span> : null)}
                </div>
              </div>
            ))}
            <div ref={endRef} />
          </div>
          <CreditsUsed meta={meta} testId="chat-cost" />
          <div className="mt-3">
            <ErrorNotice error={error} onDismiss={() => setError(null)} />
          </div>
          <form onSubmit={send} className="mt-2 space-y-2">
            {image ? (
              <div className="flex items-center gap-3 rounded-md border border-slate-200 bg-slate-50 p-2 text-sm">
                {/* eslint-disable-next-line @next/next/no-img-element */}
                <img src={image.dataUrl} alt="" className="h-10 w-10 rounded object-cover" />
                <span className="flex-1 truncate">{image.name}</span>
                <button type="button" className="link" onClick={() => setImage(null)}>
                  Remove image
                </button>
              </div>
            ) : null}
            {imageError ? (
              <p role="alert" className="text-sm text-red-700">
                {imageError}
              </p>
            ) : null}
            <label htmlFor="chat-input" className="sr-only">
              Message
            </label>
            <textarea
              id="chat-input"
              className="input min-h-20"
              placeholder="Write a message… (Enter to send, Shift+Enter for a new line)"
              value={input}
              onChange={(e) => setInput(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  e.currentTarget.form?.requestSubmit();
                }
              }}
            />
            <div className="flex flex-wrap items-center justify-between gap-2">
              <div>
                <input
                  ref={fileRef}
                  id="chat-image"
                  type="file"
                  accept={IMAGE_TYPES.join(",")}
                  className="sr-only"
                  onChange={(e) => void attach(e.target.files?.[0])}
                />
                <label
                  htmlFor="chat-image"
                  className="btn-secondary cursor-pointer focus-within:outline-2"
                  tabIndex={0}
                  onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && fileRef.current?.click()}
                >
                  Attach image
                </label>
              </div>
              <StopOrSubmit streaming={streaming} onStop={stop} disabled={!input.trim()}>
                Send
              </StopOrSubmit>
            </div>
          </form>
        </section>
        <ChatSettings idPrefix="chat" models={models} settings={settings} />
      </div>
    </>
  );
}
