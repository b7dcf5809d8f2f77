"use client";

import { useRef, useState } from "react";
import { toApiError, type ApiError } from "./api";

/** What a streamed call does: it gets the abort signal and calls `received()` once text arrived. */
export type StreamCall = (signal: AbortSignal, received: () => void) => Promise<unknown>;

/**
 * The lifecycle of a streamed AI call in the dashboard (chat, content, knowledge): one at a time,
 * stoppable, the last error and closing meta event kept. A failure shows its error unless the user
 * stopped the call; `onNothing` undoes the optimistic UI when no text arrived (an empty bubble, the
 * cleared input), told whether the user stopped it.
 */
export function useStreamRun<M>() {
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [meta, setMeta] = useState<M | null>(null);
  const abortRef = useRef<AbortController | null>(null);

  async function run(call: StreamCall, onNothing?: (stopped: boolean) => void): Promise<void> {
    setError(null);
    setMeta(null);
    setStreaming(true);
    const controller = new AbortController();
    abortRef.current = controller;
    let received = false;
    try {
      await call(controller.signal, () => {
        received = true;
      });
    } catch (e) {
      if (!controller.signal.aborted) setError(toApiError(e));
      if (!received) onNothing?.(controller.signal.aborted);
    } finally {
      setStreaming(false);
      abortRef.current = null;
    }
  }

  return {
    streaming,
    error,
    setError,
    meta,
    setMeta,
    run,
    stop: () => abortRef.current?.abort(),
    /** Forget the last error and meta (a new conversation, a cleared log). */
    reset: () => {
      setError(null);
      setMeta(null);
    },
  };
}
