import { existsSync, readFileSync, writeFileSync } from "node:fs";

/**
 * Writes one "## <title>" section of docs/BENCHMARKS.md, replacing that section if present and
 * keeping every other section (other domains append their own).
 */
export function writeSection(file: string, title: string, body: string): void {
  const heading = `## ${title}`;
  const current = existsSync(file)
    ? readFileSync(file, "utf8")
    : "# Benchmarks\n\nNumbers from `npm run bench` and the domain benchmarks under `bench/`. Each section says how it was measured.\n";
  const section = `${heading}\n\n${body.trim()}\n`;
  const lines = current.split("\n");
  const start = lines.findIndex((l) => l.trim() === heading);
  let next: string;
  if (start < 0) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    let end = lines.length;
    for (let i = start + 1; i < lines.length; i++) {
      if (/^## /.test(lines[i])) {
        end = i;
        break;
      }
    }
    const before = lines.slice(0, start).join("\n").trimEnd();
    const after = lines.slice(end).join("\n").trim();
    next = `${before}\n\n${section}${after ? `\n${after}\n` : ""}`;
  }
  writeFileSync(file, next.endsWith("\n") ? next : `${next}\n`);
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
