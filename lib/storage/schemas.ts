import { z } from "zod";

/** Response shapes of the file endpoints (the dashboard infers its types from these). */

/** A file record (SPEC §2); `url` is a short-lived signed address. */
export const fileRecordSchema = z.object({
  id: z.string(),
  url: z.string(),
  originalName: z.string(),
  size: z.number(),
  contentType: z.string(),
  createdAt: z.string(),
});

export const fileListResponse = z.object({
  files: z.array(fileRecordSchema),
  pagination: z.object({ total: z.number(), limit: z.number(), offset: z.number(), hasMore: z.boolean() }),
});

export const fileDeletedResponse = z.object({ success: z.boolean(), message: z.string() });
