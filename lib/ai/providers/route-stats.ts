import { dependencyState } from "@/lib/log";

/**
 * Each route's recent calls in this process (the operator console's routes page): outcome and latency
 * of the last MAX_SAMPLES attempts within WINDOW_MS. Per instance by nature; the Prometheus counters
 * (ai_route_attempts_total, ai_route_fallbacks_total) are the fleet-wide view.
 */
const WINDOW_MS = 15 * 60_000;
const MAX_SAMPLES = 500;

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
}

const samples = new Map<string, { list: Sample[]; lastError: { at: number; message: string } | null }>();

const key = (model: string, provider: string) => `${model}\u0000${provider}`;

export function recordRouteAttempt(model: string, provider: string, ms: number, error?: string): void {
  const k = key(model, provider);
  let entry = samples.get(k);
  if (!entry) samples.set(k, (entry = { list: [], lastError: null }));
  entry.list.push({ at: Date.now(), ms, ok: !error });
  if (entry.list.length > MAX_SAMPLES) entry.list.splice(0, entry.list.length - MAX_SAMPLES);
  if (error) entry.lastError = { at: Date.now(), message: error };
  dependencyState(`AI provider ${provider}`, error ? "down" : "up", error ? { model, error } : { model });
}

export interface RouteStats {
  calls: number;
  errors: number;
  errorRate: number;
  p50Ms: number | null;
  p95Ms: number | null;
  lastError: { at: string; message: string } | null;
  windowMinutes: number;
}

export function routeStats(model: string, provider: string, now = Date.now()): RouteStats {
  const entry = samples.get(key(model, provider));
  const recent = (entry?.list ?? []).filter((s) => now - s.at <= WINDOW_MS);
  const errors = recent.filter((s) => !s.ok).length;
  const ms = recent
    .filter((s) => s.ok)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  const pct = (p: number) => (ms.length ? ms[Math.min(ms.length - 1, Math.floor((p / 100) * ms.length))] : null);
  return {
    calls: recent.length,
    errors,
    errorRate: recent.length ? errors / recent.length : 0,
    p50Ms: pct(50),
    p95Ms: pct(95),
    lastError: entry?.lastError ? { at: new Date(entry.lastError.at).toISOString(), message: entry.lastError.message } : null,
    windowMinutes: WINDOW_MS / 60_000,
  };
}
