import type { RagSource } from "./ask-question";
import { db } from "@/lib/db/client";
import { notFound } from "@/lib/errors";

export interface ConversationSummary {
  id: string;
  title: string;
  messageCount: number;
  /** Content of the newest message ("" for a conversation without messages). */
  lastMessage: string;
  createdAt: string;
  updatedAt: string;
}

export interface ConversationMessage {
  id: string;
  role: string;
  content: string;
  tokens: number;
  model: string;
  /** Assistant messages: the sources the answer was given (same shape as the ask response). */
  sources?: RagSource[];
  createdAt: string;
}

export interface ConversationDetail {
  id: string;
  title: string;
  tier: string;
  createdAt: string;
  updatedAt: string;
  messages: ConversationMessage[];
}

/** The user's conversations, most recently active first, with their message count and newest message. */
export async function listConversations(input: { userId: string; limit: number; offset: number }) {
  const prisma = await db();
  const where = { userId: input.userId };
  const [total, rows] = await Promise.all([
    prisma.ragConversation.count({ where }),
    prisma.ragConversation.findMany({
      where,
      orderBy: [{ updatedAt: "desc" }, { id: "asc" }],
      skip: input.offset,
      take: input.limit,
      select: {
        id: true,
        title: true,
        createdAt: true,
        updatedAt: true,
        _count: { select: { messages: true } },
        messages: { orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: 1, select: { content: true } },
      },
    }),
  ]);
  const conversations: ConversationSummary[] = rows.map((row) => ({
    id: row.id,
    title: row.title,
    messageCount: row._count.messages,
    lastMessage: row.messages[0]?.content ?? "",
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
  return {
    conversations,
    pagination: { total, limit: input.limit, offset: input.offset, hasMore: input.offset + rows.length < total },
  };
}

/** One of the user's conversations with all its messages (oldest first); 404 for another's or a missing one. */
export async function getConversation(input: { userId: string; id: string }): Promise<ConversationDetail> {
  const prisma = await db();
  const row = await prisma.ragConversation.findFirst({
    where: { id: input.id, userId: input.userId },
    include: { messages: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
  if (!row) throw notFound("Conversation");
  return {
    id: row.id,
    title: row.title,
    tier: row.tier,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    messages: row.messages.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      tokens: m.tokens,
      model: m.model,
      ...(m.sources ? { sources: m.sources as unknown as RagSource[] } : {}),
      createdAt: m.createdAt.toISOString(),
    })),
  };
}

/** Deletes one of the user's conversations and its messages; 404 for another's or a missing one. */
export async function deleteConversation(input: { userId: string; id: string }): Promise<{ success: true; deleted: number }> {
  const prisma = await db();
  const { count } = await prisma.ragConversation.deleteMany({ where: { id: input.id, userId: input.userId } });
  if (count === 0) throw notFound("Conversation");
  return { success: true, deleted: count };
}
