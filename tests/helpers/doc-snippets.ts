import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * The fenced code blocks of README.md and docs/*.md, for the test that runs or checks each of them
 * (tests/e2e/doc-snippets.test.ts): a snippet in the docs can then not drift from the code. The info
 * string is the language, then attributes: `title="hello.mjs"` names a snippet the test runs by name,
 * `not-run="why"` says why a snippet cannot be run here (then it must say so).
 */
export interface DocSnippet {
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  lang: string;
  attrs: Record<string, string>;
  code: string;
}

function parseInfo(info: string): { lang: string; attrs: Record<string, string> } {
  const [lang = "", ...rest] = info.trim().split(/\s+(?=(?:[^"]*"[^"]*")*[^"]*$)/);
  const attrs: Record<string, string> = {};
  for (const part of rest) {
    const m = /^([\w-]+)=(?:"([^"]*)"|(\S+))$/.exec(part);
    if (m) attrs[m[1]] = m[2] ?? m[3];
  }
  return { lang, attrs };
}

export function snippetsOf(file: string, text: string): DocSnippet[] {
  const out: DocSnippet[] = [];
  const lines = text.split("\n");
  let open: { line: number; info: string; body: string[] } | null = null;
  lines.forEach((line, i) => {
    const fence = /^```(.*)$/.exec(line);
    if (!fence) {
      open?.body.push(line);
      return;
    }
    if (!open) open = { line: i + 1, info: fence[1], body: [] };
    else {
      const { lang, attrs } = parseInfo(open.info);
      out.push({ file, line: open.line, lang, attrs, code: open.body.join("\n") });
      open = null;
    }
  });
  return out;
}

/** Every snippet of README.md and docs/*.md, in file order. */
export function docSnippets(root = process.cwd()): DocSnippet[] {
  const files = [
    "README.md",
    ...readdirSync(path.join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  return files.flatMap((file) => snippetsOf(file, readFileSync(path.join(root, file), "utf8")));
}

/**
 * The output a snippet's comments promise (`curl … # {"status":"free","tier":"free",...}`): the parts
 * of each comment that starts like JSON or a status code, split at "...", each of which the output
 * must contain.
 */
export function promisedOutput(code: string): string[] {
  const out: string[] = [];
  for (const line of code.split("\n")) {
    const m = /\s#\s+(\{.*|\d{3})\s*$/.exec(line);
    if (!m) continue;
    for (const piece of m[1].split("...")) {
      const trimmed = piece
        .replace(/^\{/, "")
        .replace(/[,}\]]+$/, "")
        .replace(/^[,\]}]+/, "")
        .trim();
      if (trimmed.length >= 3) out.push(trimmed);
    }
  }
  return out;
}
