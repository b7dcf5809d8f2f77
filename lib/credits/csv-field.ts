/**
 * One CSV field: quoted when needed; an object as JSON; text starting like a formula (= + - @ tab CR)
 * prefixed with ' so spreadsheets show it as text.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
