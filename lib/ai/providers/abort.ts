/**
 * Thrown when the CALLER aborted (the client went away): not an upstream failure. `received`: the
 * provider may already have the request (the abort came while it was being answered), so the call
 * is billed; false when the request never left (lib/ai/providers/upstream-error.ts reachOf).
 */
export class AiAbortError extends Error {
  readonly received: boolean;
  constructor(received = true) {
    super("The request was aborted by the client");
    this.name = "AbortError";
    this.received = received;
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof AiAbortError || (error instanceof Error && error.name === "AbortError");
}
