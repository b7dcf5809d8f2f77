import { CREDIT_COSTS } from "@/lib/config/pricing";

/**
 * Every charged AI operation, by its ledger name, and its flat price (SPEC §8; CREDIT_COSTS in
 * lib/config/pricing.ts is the public list of the same figures): the one place a call's operation
 * and its price are tied. A feature names its operation; the quote finds the price. (A RAG answer
 * is priced by its context, lib/rag, and gives its price itself.)
 */
export const FLAT_PRICES = {
  chat: CREDIT_COSTS.chat,
  stream: CREDIT_COSTS.streamText,
  stream_image: CREDIT_COSTS.streamImage,
  content_generation: CREDIT_COSTS.contentGeneration,
  image_generation: CREDIT_COSTS.imageGeneration,
  speech_to_text: CREDIT_COSTS.speechToText,
  embeddings: CREDIT_COSTS.embeddings,
} as const;

export type ChargedOperation = keyof typeof FLAT_PRICES;

export const flatPrice = (operation: ChargedOperation): number => FLAT_PRICES[operation];

/** A quote's price: an operation's flat price, or a price the caller computed (RAG). */
export type PricedBy = { operation: ChargedOperation } | { flat: number };

export const flatOf = (priced: PricedBy): number => ("flat" in priced ? priced.flat : flatPrice(priced.operation));
