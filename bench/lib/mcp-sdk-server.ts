/**
 * The peer of bench/http-peers.ts: the official MCP TypeScript SDK's Streamable HTTP server on Node,
 * serving the same `add` tool (zod input schema) in stateless mode, as the SDK documents it: a new
 * McpServer and StreamableHTTPServerTransport per request (a stateless transport refuses reuse).
 *   POST /json  enableJsonResponse: true (one JSON answer)
 *   POST /sse   the default: the answer as a text/event-stream with one event
 * Its own process, so the load generator never shares its event loop. Prints "listening <port>".
 * Run: node scripts/run-ts.mjs bench/lib/mcp-sdk-server.ts [port]
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function mcpServer(): McpServer {
  const server = new McpServer({ name: "bench-sdk", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({
      content: [{ type: "text", text: JSON.stringify({ sum: a + b }) }],
    }),
  );
  return server;
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const mode = req.url === "/json" ? "json" : req.url === "/sse" ? "sse" : undefined;
  if (req.method !== "POST" || !mode) {
    res.writeHead(404).end();
    return;
  }
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: mode === "json",
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const http = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    console.error(error);
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
    res.end('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}');
  });
});
http.keepAliveTimeout = 60_000;
http.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  const address = http.address();
  console.log(`listening ${typeof address === "object" && address ? address.port : "?"}`);
});
process.on("SIGTERM", () => http.close(() => process.exit(0)));
