import { AppError } from "@/lib/errors";
import { RAG } from "./settings";

/** A message in the chat SDK's format: `content` as a string or parts, or `parts` (UI messages). */
export interface SdkMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  parts?: { type: string; text?: string }[];
}

function textOf(message: SdkMessage): string {
  const pieces: string[] = [];
  if (typeof message.content === "string") pieces.push(message.content);
  else if (Array.isArray(message.content))
    for (const p of message.content) if (p?.type === "text" && typeof p.text === "string") pieces.push(p.text);
  if (Array.isArray(message.parts))
    for (const p of message.parts) if (p?.type === "text" && typeof p.text === "string") pieces.push(p.text);
  return pieces.join("\n");
}

/**
 * The question of an ask request: `question`, else the text of the last user message of `messages`
 * (string content, content parts or UI-message parts; only text parts count). 400 when there is none
 * or it is too long.
 */
export function resolveQuestion(body: { question?: string; messages?: SdkMessage[] } | undefined): string {
  let question = typeof body?.question === "string" ? body.question.trim() : "";
  if (!question && Array.isArray(body?.messages)) {
    const lastUser = [...body.messages].reverse().find((m) => m?.role === "user");
    question = lastUser ? textOf(lastUser).trim() : "";
  }
  if (!question)
    throw new AppError("validation_failed", "Missing question: send `question` or `messages` ending with a user message that has text");
  if (question.length > RAG.questionMaxChars) {
    throw new AppError("validation_failed", `Invalid body: question must be at most ${RAG.questionMaxChars} characters`);
  }
  return question;
}
