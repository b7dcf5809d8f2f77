import { countTokens } from "@/lib/ai/pricing/tokens";
import { db } from "@/lib/db/client";
import type { PreparedAsk } from "./prepare-ask";

/**
 * Stores a question and its answer: creates the conversation (if new) and both messages in one
 * transaction. A conversation deleted while the answer was produced stays deleted. Never throws: the
 * answer was delivered and paid, so a lost transcript is logged, not turned into an error.
 */
export async function persistExchange(
  p: PreparedAsk,
  answer: string,
  model: string,
  completionTokens?: number,
  extra: { aborted?: boolean } = {},
): Promise<void> {
  try {
    const prisma = await db();
    const { conversation, input } = p;
    const now = Date.now();
    await prisma.$transaction(async (tx) => {
      if (conversation.isNew) {
        await tx.ragConversation.create({
          data: { id: conversation.id, userId: input.userId, title: conversation.title, tier: conversation.tier, createdAt: new Date(now) },
        });
      } else {
        const { count } = await tx.ragConversation.updateMany({
          where: { id: conversation.id, userId: input.userId },
          data: { updatedAt: new Date(now) },
        });
        if (count === 0) return; // deleted while the answer was produced
      }
      await tx.ragMessage.create({
        data: {
          conversationId: conversation.id,
          role: "user",
          content: input.question,
          tokens: countTokens(input.question),
          model,
          createdAt: new Date(now),
        },
      });
      await tx.ragMessage.create({
        data: {
          conversationId: conversation.id,
          role: "assistant",
          content: answer,
          tokens: completionTokens || countTokens(answer),
          model,
          sources: p.sources as unknown as object,
          createdAt: new Date(now + 1),
        },
      });
    });
    if (extra.aborted) p.log.info("rag: a partial answer was stored (the client went away)", { conversationId: conversation.id });
  } catch (error) {
    p.log.error("rag: persisting the conversation failed", { conversationId: p.conversation.id, error });
  }
}
