import { z } from "zod";
import { methods, route } from "@/lib/http/route";
import { indexUploadedFile } from "@/lib/rag";
import { toFileRecord } from "@/lib/storage/file-record";
import { fileRecordSchema } from "@/lib/storage/schemas";
import { appBaseUrl } from "@/lib/config/public-url";
import { uploadFile } from "@/lib/storage/upload-file";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const required = (iss: { input: unknown }) => (iss.input === undefined ? "is required" : "must be a string");

const uploadQuery = z.object({
  filename: z.string({ error: required }).min(1, "is required"),
  filesize: z
    .string({ error: required })
    .regex(/^\d{1,15}$/, "must be a whole number of bytes")
    .transform(Number),
  filetype: z.string({ error: required }).min(1, "is required"),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route(
    {
      auth: "session",
      rateLimit: "upload",
      query: uploadQuery,
      summary: "Upload a file (raw streamed body)",
      description:
        "The body is the file's bytes (not multipart), streamed to object storage. filetype must be on the allowlist and match the content's magic bytes (text-like types: UTF-8 without NUL). filesize must equal the bytes sent and be at most UPLOAD_MAX_BYTES (default 50 MB; 413 above). The same content uploaded again by the same user is 409.",
      tags: ["files"],
      errors: [400, 409, 413, 503],
      consumes: "application/octet-stream",
      response: fileRecordSchema,
    },
    async ({ user, query, req }) => {
      const file = await uploadFile({
        userId: user.id,
        filename: query.filename,
        filesize: query.filesize,
        filetype: query.filetype,
        body: req.body,
      });
      // Text-like uploads become searchable by their owner before the answer (RAG over own files).
      await indexUploadedFile(file);
      return toFileRecord(file, appBaseUrl(req.url));
    },
  ),
});
