import { z } from "zod";

/** OpenAPI/response shape of a file record (SPEC §2). */
export const fileRecordSchema = z.object({
  id: z.string(),
  url: z.string(),
  originalName: z.string(),
  size: z.number(),
  contentType: z.string(),
  createdAt: z.string(),
});
