import { z } from "zod";
import { streamMetaEvent } from "@/lib/ai/schemas";

const part = z.looseObject({ type: z.string(), text: z.string().optional() });

/** A chat-SDK message: `content` (string or parts) and/or `parts` (UI messages); only text counts. */
const sdkMessage = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(part)]).nullish(),
  parts: z.array(part).optional(),
});

/** POST /api/ai/rag/ask body. The question itself is checked by resolveQuestion (400 "Missing question"). */
export const askBodySchema = z
  .object({
    question: z.string().optional(),
    messages: z.array(sdkMessage).max(200).optional(),
    conversationId: z.string().min(1).max(100).optional(),
    stream: z.boolean().optional(),
  })
  .optional();

export const ragSourceSchema = z.object({
  title: z.string(),
  fileId: z.string().optional(),
  path: z.string().optional(),
  excerpt: z.string(),
  score: z.number(),
});

export const askResponseSchema = z.object({
  answer: z.string(),
  conversationId: z.string(),
  sources: z.array(ragSourceSchema),
  chunksUsed: z.number(),
  tokensEstimated: z.number(),
  creditsUsed: z.number(),
  creditsRemaining: z.number(),
  model: z.string(),
  retrieval: z.enum(["hybrid", "full-text"]),
});

export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

export const deleteQuerySchema = z.object({ id: z.string().optional() });

const summary = z.object({
  id: z.string(),
  title: z.string(),
  messageCount: z.number(),
  lastMessage: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const listResponseSchema = z.object({
  conversations: z.array(summary),
  pagination: z.object({ total: z.number(), limit: z.number(), offset: z.number(), hasMore: z.boolean() }),
});

export const detailResponseSchema = z.object({
  id: z.string(),
  title: z.string(),
  tier: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  messages: z.array(
    z.object({
      id: z.string(),
      role: z.string(),
      content: z.string(),
      tokens: z.number(),
      model: z.string(),
      sources: z.array(ragSourceSchema).optional(),
      createdAt: z.string(),
    }),
  ),
});

/** The closing `event: meta` of a streamed answer: the credits, and the conversation it was saved to. */
export const ragStreamMetaEvent = streamMetaEvent.extend({ conversationId: z.string(), model: z.string(), chunksUsed: z.number() });
