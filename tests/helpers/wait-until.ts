/**
 * Waits until `condition` holds (checked every 25 ms), failing with `what` after `ms`: for a state
 * the system reaches on its own (a settlement written after the answer, a stub seeing its client
 * leave), instead of a fixed sleep that is either too short on a slow machine or too long everywhere.
 */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
