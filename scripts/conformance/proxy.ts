import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The conformance suite's client sends no credentials, and /mcp requires a key. This proxy adds the
 * conformance tenant's key and passes everything else through untouched (Host and Origin included,
 * so the DNS-rebinding scenario reaches the Worker's guard), streaming bodies both ways for SSE.
 */
export async function startAuthProxy(
  upstreamPort: number,
  key: string,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((incoming, outgoing) => {
    const upstream = request(
      {
        host: "127.0.0.1",
        port: upstreamPort,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${key}` },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on("error", (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`proxy: ${error.message}`);
    });
    // A client that hangs up mid-stream (the suite reads a few events, then cancels) ends the upstream too.
    outgoing.on("close", () => upstream.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
