import { Readable } from "node:stream";
import { methods, route } from "@/lib/http/route";
import { contentDisposition } from "@/lib/storage/content-disposition";
import { openFileContent } from "@/lib/storage/open-file-content";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route(
    {
      auth: "none",
      summary: "Download a file through its signed local address",
      description:
        "The address comes from a file record's url when files are on local storage: expires (Unix seconds) and token (HMAC) authorise it instead of a session. 403 when the token is invalid or expired, 404 when the file was deleted. One `Range: bytes=` range is served as 206 (416 when it starts past the end).",
      tags: ["files"],
      errors: [403, 404, 416],
      produces: "application/octet-stream",
    },
    async ({ params, req }) => {
      const url = new URL(req.url);
      const file = await openFileContent(
        params.id,
        url.searchParams.get("expires"),
        url.searchParams.get("token"),
        req.headers.get("range"),
      );
      const { range } = file;
      return new Response(Readable.toWeb(file.stream) as ReadableStream<Uint8Array>, {
        status: range ? 206 : 200,
        headers: {
          "content-type": file.contentType,
          "content-length": String(range ? range.end - range.start + 1 : file.size),
          ...(range ? { "content-range": `bytes ${range.start}-${range.end}/${file.size}` } : {}),
          "accept-ranges": "bytes",
          "content-disposition": contentDisposition(file.originalName),
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
          "cache-control": "private, no-store",
        },
      });
    },
  ),
});
