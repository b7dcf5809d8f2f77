/**
 * Retrieval-augmented question answering (see docs/API-NOTES.md "RAG"): knowledge and upload
 * ingestion, token-aware chunking, full-text + vector retrieval fused by reciprocal rank, answers with
 * sources, persisted conversations.
 */
export { indexKnowledge, knowledgeDir, type KnowledgeIndexResult, type KnowledgeProgress } from "./index-knowledge";
export { indexDocument, removeDocument, contentHash, type DocumentInput, type IndexOutcome } from "./index-document";
export { indexUploadedFile } from "./index-uploaded-file";
export { chunkText, type Chunk } from "./chunk-text";
export { retrieveChunks, fullTextSearch, vectorSearch, fuseByRank, type RetrievedChunk } from "./search-chunks";
export { askQuestion, streamQuestion, type AskAnswer, type AskStream, type RagSource } from "./ask-question";
export { conversationTitle } from "./prepare-ask";
export { resolveQuestion } from "./resolve-question";
export { listConversations, getConversation, deleteConversation } from "./conversations";
export { RAG, ragCreditCost } from "./settings";
