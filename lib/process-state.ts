/**
 * What one server process keeps once, whichever bundle asks for it: Next bundles pages, route handlers
 * and instrumentation separately (each with its own copy of a module), `next dev` reloads them, and the
 * standalone server's preflight is a bundle of its own; a cache, a pool, a registry or the shutdown
 * hook must still be the process's one. The one place that touches globalThis: each piece of state is
 * made on first use under its name, and every later caller, in any bundle, gets the same object.
 */
const shelf: Map<string, unknown> = ((globalThis as { __processState?: Map<string, unknown> }).__processState ??= new Map());

export function processState<T>(name: string, create: () => T): T {
  if (!shelf.has(name)) shelf.set(name, create());
  return shelf.get(name) as T;
}
