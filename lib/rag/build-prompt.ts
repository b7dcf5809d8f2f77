import type { ChatMessage } from "@/lib/ai/providers/provider";
import type { RetrievedChunk } from "./search-chunks";
import { countTokens } from "@/lib/ai/pricing/tokens";

export const SYSTEM_INSTRUCTIONS = [
  "You answer questions using the numbered context passages below: this service's documentation and the user's own documents.",
  "Base the answer only on the passages and the conversation; cite the passages you used like [1] or [2].",
  "If the passages do not contain the answer, say that you could not find it in the available documents instead of guessing.",
].join(" ");

/** The context block: one numbered passage per chunk, labelled with its document. */
export function contextBlock(chunks: RetrievedChunk[]): string {
  if (chunks.length === 0) return "Context: (no matching passages were found)";
  return ["Context:", ...chunks.map((c, i) => `[${i + 1}] ${c.title}${c.path ? ` (${c.path})` : ""}\n${c.content}`)].join("\n\n");
}

/** System message (instructions + context), then the conversation history, then the question. */
export function buildMessages(question: string, chunks: RetrievedChunk[], history: ChatMessage[]): ChatMessage[] {
  return [
    { role: "system", content: `${SYSTEM_INSTRUCTIONS}\n\n${contextBlock(chunks)}` },
    ...history,
    { role: "user", content: question },
  ];
}

/** Estimated prompt tokens: contents plus ~4 tokens of framing per message. */
export function estimatePromptTokens(messages: ChatMessage[]): number {
  return messages.reduce(
    (sum, m) =>
      sum + 4 + countTokens(typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join(" ")),
    3,
  );
}
