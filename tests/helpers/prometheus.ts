/**
 * Reads one series from Prometheus text exposition (what /api/metrics answers): the value of `name`
 * whose labels are exactly `labels`, or 0 when no such series is there (a counter not yet touched).
 */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const m = /^([^{\s]+)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v))
      return Number(m[3]);
  }
  return 0;
}
