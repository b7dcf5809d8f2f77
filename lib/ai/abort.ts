/** Thrown when the CALLER aborted (client went away): not an upstream failure; callers decide the charge. */
export class AiAbortError extends Error {
  constructor() {
    super("The request was aborted by the client");
    this.name = "AbortError";
  }
}

export function isAbortError(error: unknown): boolean {
  return error instanceof AiAbortError || (error instanceof Error && error.name === "AbortError");
}
