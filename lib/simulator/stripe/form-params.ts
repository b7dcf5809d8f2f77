/**
 * Stripe's request encoding: form fields with bracketed keys (`line_items[0][price]`,
 * `metadata[user_id]`), in POST bodies and GET query strings alike. Numeric keys make arrays.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };

export function parseFormParams(encoded: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [key, value] of new URLSearchParams(encoded)) {
    const path = key.split(/\[|\]\[|\]/).filter((part, i) => i === 0 || part !== "");
    let node: Record<string, FormValue> = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) {
        node[part] = value;
        return;
      }
      node[part] ??= {};
      node = node[part] as Record<string, FormValue>;
    });
  }
  return arraysOf(root) as Record<string, FormValue>;
}

function arraysOf(value: FormValue): FormValue {
  if (typeof value === "string" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const entries = keys.map((k) => [k, arraysOf(value[k])] as const);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, v]) => v);
  }
  return Object.fromEntries(entries);
}

/** A field as text (absent: undefined). */
export function text(value: FormValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A field's string map (metadata). */
export function stringMap(value: FormValue | undefined): Record<string, string> {
  if (!value || typeof value === "string" || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

export function field(value: FormValue | undefined, key: string): FormValue | undefined {
  if (!value || typeof value === "string" || Array.isArray(value)) return undefined;
  return value[key];
}

export function item(value: FormValue | undefined, index: number): FormValue | undefined {
  return Array.isArray(value) ? value[index] : undefined;
}
