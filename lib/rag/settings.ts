/**
 * RAG constants (documented in docs/API-NOTES.md, section RAG).
 *   chunks      at most 256 tokens (o200k_base) each, 48 tokens of overlap inside a section
 *   retrieval   top 5 chunks; each ranker contributes its top 20 candidates to reciprocal-rank fusion (k = 60)
 *   history     up to the last 6 messages of the conversation, at most 1000 tokens
 *   cost        10 credits + 1 per started 500 tokens of context (retrieved chunks + history), at most 20
 */
export const RAG = {
  chunkTokens: 256,
  overlapTokens: 48,
  topK: 5,
  candidates: 20,
  rrfK: 60,
  historyMessages: 6,
  historyTokens: 1000,
  questionMaxChars: 4000,
  titleMaxChars: 80,
  excerptChars: 240,
  baseCost: 10,
  tokensPerCredit: 500,
  maxCost: 20,
} as const;

/** Credits for one question: grows with the context sent to the model (see RAG above). */
export function ragCreditCost(contextTokens: number): number {
  const extra = Math.ceil(Math.max(0, contextTokens) / RAG.tokensPerCredit);
  return Math.min(RAG.maxCost, RAG.baseCost + extra);
}
