import type { File } from "@/lib/generated/prisma/client";
import { log } from "@/lib/log";
import { indexUploadedFile, removeUploadedFileFromIndex } from "@/lib/rag/index-uploaded-file";

/**
 * Steps other domains run when a file is stored or about to be deleted. Each domain adds ONE line to
 * the list (for example RAG indexes text-like uploads into the owner's private retrieval scope).
 * A failing step is logged and never fails the upload or the delete.
 */
type FileStep = [name: string, step: (file: File) => Promise<unknown>];

const afterStoredSteps: FileStep[] = [
  ["rag-index", (file) => indexUploadedFile(file)],
];

const beforeDeletedSteps: FileStep[] = [
  ["rag-unindex", (file) => removeUploadedFileFromIndex(file)],
];

async function runSteps(phase: string, steps: FileStep[], file: File): Promise<void> {
  for (const [name, step] of steps) {
    try {
      await step(file);
    } catch (error) {
      log.error("file hook step failed", { phase, step: name, fileId: file.id, userId: file.userId, error });
    }
  }
}

/** Runs after the object is stored and its record committed. */
export async function afterFileStored(file: File): Promise<void> {
  await runSteps("afterFileStored", afterStoredSteps, file);
}

/** Runs before the object and its record are deleted (also for each file of a user being deleted). */
export async function beforeFileDeleted(file: File): Promise<void> {
  await runSteps("beforeFileDeleted", beforeDeletedSteps, file);
}
