import { methods, route } from "@/lib/http/route";
import { deleteFile } from "@/lib/storage/delete-file";
import { toFileRecord } from "@/lib/storage/file-record";
import { fileDeletedResponse, fileRecordSchema } from "@/lib/storage/schemas";
import { findOwnedFile } from "@/lib/storage/get-file";
import { appBaseUrl } from "@/lib/config/public-url";

export const dynamic = "force-dynamic";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      summary: "A file's record with a short-lived signed address",
      description: "Owner only: another user's id, a malformed id and a missing id all answer 404.",
      tags: ["files"],
      response: fileRecordSchema,
    },
    async ({ user, params, req }) => toFileRecord(await findOwnedFile(user.id, params.id), appBaseUrl(req.url)),
  ),
  DELETE: route(
    {
      auth: "session",
      summary: "Delete a file from object storage and the database",
      tags: ["files"],
      response: fileDeletedResponse,
    },
    ({ user, params }) => deleteFile(user.id, params.id),
  ),
});
