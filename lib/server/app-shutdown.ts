import { processState } from "@/lib/process-state";

/**
 * What a stopping server does once its requests are done (settlements written, the database closed),
 * set by the app when it has started (lib/server/start-server.ts) and run by the standalone server's
 * signal handling (scripts/preflight.ts, a bundle of its own: the hook is the process's, process-state).
 * Its presence also says the app has started (instrumentation ran: configuration checked, database open).
 */
const hook = processState("appShutdown", () => ({ run: null as (() => Promise<void>) | null }));

export function setAppShutdown(run: () => Promise<void>): void {
  hook.run = run;
}

/** Whether the app has started (its shutdown is set). */
export function appStarted(): boolean {
  return hook.run !== null;
}

/** Runs the app's shutdown (nothing when the app never started). */
export async function runAppShutdown(): Promise<void> {
  if (hook.run) await hook.run();
}
