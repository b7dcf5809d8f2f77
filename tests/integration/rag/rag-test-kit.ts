import { POST as UPLOAD } from "@/app/api/upload/route";
import { db } from "@/lib/db/client";
import { parseSse } from "@/lib/http/sse";
import { call } from "@/tests/helpers/http";

/** Fixtures of the RAG integration tests: uploads through the real endpoint, balances, ledger, SSE. */
export async function uploadDocument(cookie: string, name: string, type: string, bytes: Buffer) {
  const query = new URLSearchParams({ filename: name, filesize: String(bytes.length), filetype: type });
  const res = await call(UPLOAD, {
    method: "POST",
    path: `/api/upload?${query}`,
    cookie,
    headers: { "content-type": "application/octet-stream" },
    rawBody: new Uint8Array(bytes),
  });
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${res.text}`);
  return res.body as { id: string; originalName: string };
}

/** A one-page PDF whose text is `line` (Helvetica, no compression). */
export function pdfWithText(line: string): Buffer {
  const escaped = line.replace(/([()\\])/g, "\\$1");
  const stream = `BT /F1 14 Tf 72 720 Td (${escaped}) Tj ET`;
  const objects = [
    "<</Type/Catalog/Pages 2 0 R>>",
    "<</Type/Pages/Kids[3 0 R]/Count 1>>",
    "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>",
    `<</Length ${Buffer.byteLength(stream)}>>\nstream\n${stream}\nendstream`,
    "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

export async function balanceOf(userId: string): Promise<number> {
  const prisma = await db();
  return (await prisma.creditBalance.findUniqueOrThrow({ where: { userId } })).subscriptionCredits;
}

export async function setBalance(userId: string, credits: number): Promise<void> {
  const prisma = await db();
  await prisma.creditBalance.update({ where: { userId }, data: { subscriptionCredits: credits } });
}

/** The RAG ledger rows of a user (charges negative, refunds positive), oldest first. */
export async function ragLedger(userId: string) {
  const prisma = await db();
  return prisma.creditTransaction.findMany({ where: { userId, operation: "rag_ask" }, orderBy: { createdAt: "asc" } });
}

export async function refundRows(userId: string) {
  const prisma = await db();
  return prisma.creditTransaction.findMany({ where: { userId, type: "refund" }, orderBy: { createdAt: "asc" } });
}

export function sseEvents(text: string) {
  return parseSse(text).map((e) => ({ ...e, json: e.data === "[DONE]" ? undefined : (JSON.parse(e.data) as any) }));
}

export function decodeSources(header: string | null): any[] {
  return JSON.parse(Buffer.from(header ?? "", "base64").toString("utf8"));
}
