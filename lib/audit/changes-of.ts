/** What a change changed, for an audit row: `{ field: { from, to } }` for each listed field whose value differs. */
export function changesOf<T extends object>(
  before: T,
  after: T,
  fields: (keyof T & string)[],
): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of fields) {
    if (JSON.stringify(before[f]) !== JSON.stringify(after[f])) out[f] = { from: before[f] ?? null, to: after[f] ?? null };
  }
  return out;
}
