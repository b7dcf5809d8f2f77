import { z } from "zod";
import { methods, route } from "@/lib/http/route";
import { fileListResponse } from "@/lib/storage/schemas";
import { listFiles } from "@/lib/storage/list-files";
import { appBaseUrl } from "@/lib/config/public-url";

export const dynamic = "force-dynamic";

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "session",
      query: listQuery,
      summary: "The signed-in user's files, newest first",
      tags: ["files"],
      response: fileListResponse,
    },
    ({ user, query, req }) => listFiles(user.id, query.limit, query.offset, appBaseUrl(req.url)),
  ),
});
