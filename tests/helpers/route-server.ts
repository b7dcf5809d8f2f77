import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { NextRouteHandler } from "@/lib/http/route";

/**
 * One route handler behind a real HTTP listener on 127.0.0.1, for peers that call us over the
 * network (a provider's simulator sending webhooks): each request becomes a real Request, as Next
 * builds it, and the handler's Response is written back.
 */
export async function serveRoute(handler: NextRouteHandler): Promise<{ url: string; close(): Promise<void> }> {
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const server = createServer(async (req, res) => {
    const body = await read(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://localhost:3000${req.url ?? "/"}`, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    });
    const response = await handler(request, { params: Promise.resolve({}) });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
