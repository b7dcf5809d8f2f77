const UNMATCHED_ROUTE = "(unmatched)";

/**
 * The route's pattern for metric labels: the path with each parameter's value put back as `{name}`
 * (/api/files/{id}), so labels never carry ids.
 */
export function routePattern(pathname: string, params: Record<string, string>): string {
  const names = Object.entries(params);
  if (names.length === 0) return pathname;
  const segments = pathname.split("/");
  for (const [name, value] of names) {
    const parts = value.split("/");
    const encoded = parts.map(safeEncode);
    let found = false;
    for (let i = 0; i + parts.length <= segments.length && !found; i++) {
      const slice = segments.slice(i, i + parts.length);
      if (slice.every((seg, j) => seg === parts[j] || seg === encoded[j] || safeDecode(seg) === parts[j])) {
        segments.splice(i, parts.length, `{${name}}`);
        found = true;
      }
    }
    // Never fall back to the raw path: it would put the id into a label.
    if (!found) return UNMATCHED_ROUTE;
  }
  return segments.join("/");
}

function safeEncode(part: string): string {
  try {
    return encodeURIComponent(part);
  } catch {
    return part; // an unpaired surrogate has no encoding
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
