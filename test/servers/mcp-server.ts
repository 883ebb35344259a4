import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

export interface McpTestServer {
  url: string;
  /** Every HTTP request: method, path with query, headers and parsed JSON body. */
  requests: { method: string; url: string; headers: IncomingHttpHeaders; body: unknown }[];
  /** Reasons of the tool calls the client cancelled. */
  cancelled: string[];
  /** Change the echo tool's description on every session (sends list_changed on their GET streams). */
  changeEchoDescription(text: string): void;
  /** Forget all sessions: the next request with an old session id gets 404. */
  expireSessions(): void;
  /** Cut every open connection (answers under way break off); the server keeps listening and its sessions. */
  dropConnections(): void;
  close(): Promise<void>;
}

type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve(text ? JSON.parse(text) : undefined);
    });
    req.on("error", reject);
  });
}

/** A real MCP server (official SDK: McpServer + StreamableHTTPServerTransport) on 127.0.0.1. */
export async function startMcpServer(options: { json?: boolean; pageSize?: number } = {}): Promise<McpTestServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const echoTools = new Set<RegisteredTool>();
  const requests: McpTestServer["requests"] = [];
  const cancelled: string[] = [];
  let echoDescription = "Echo the text back";

  function build(): McpServer {
    const mcp = new McpServer({ name: "test-server", version: "1.0.0" });
    const echo = mcp.registerTool(
      "echo",
      { description: echoDescription, inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
      async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
    );
    echoTools.add(echo);
    mcp.registerTool(
      "add",
      {
        description: "Add two numbers",
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
      },
      async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }),
    );
    mcp.registerTool("fail", { description: "Always fails" }, async () => ({
      content: [{ type: "text", text: "it failed on purpose" }],
      isError: true,
    }));
    mcp.registerTool("slow", { description: "Waits", inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2, message: "halfway" },
        });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          cancelled.push(String(extra.signal.reason ?? "aborted"));
          resolve();
        });
      });
      return { content: [{ type: "text", text: "done" }] };
    });
    mcp.registerTool("bump", { description: "Changes the echo tool and says so in this response" }, async (extra) => {
      echoDescription = `${echoDescription} (bumped)`;
      for (const tool of echoTools) tool.update({ description: echoDescription });
      await extra.sendNotification({ method: "notifications/tools/list_changed" });
      return { content: [{ type: "text", text: "bumped" }] };
    });
    mcp.registerTool(
      "ask",
      { description: "Asks the client's model (sampling), as a 2025 server may" },
      async (extra) => {
        const { CreateMessageResultSchema } = await import("@modelcontextprotocol/sdk/types.js");
        const answer = await extra.sendRequest(
          { method: "sampling/createMessage", params: { messages: [], maxTokens: 1 } },
          CreateMessageResultSchema,
        );
        return { content: [{ type: "text", text: JSON.stringify(answer) }] };
      },
    );
    mcp.registerTool("rpc_fail", { description: "Answers with a JSON-RPC error" }, async () => ({ content: [] }));
    mcp.registerTool("dotted.name", { description: "A name toolgate must sanitise" }, async () => ({
      content: [{ type: "text", text: "ok" }],
    }));

    // Paginate tools/list and add a JSON-RPC error, around the SDK's own handlers.
    const handlers = (mcp.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
    const list = handlers.get("tools/list") as Handler;
    const call = handlers.get("tools/call") as Handler;
    const pageSize = options.pageSize ?? 2;
    mcp.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const all = ((await list(request, extra)) as { tools: unknown[] }).tools;
      const start = Number(request.params?.cursor ?? 0);
      const next = start + pageSize;
      return { tools: all.slice(start, next), ...(next < all.length ? { nextCursor: String(next) } : {}) } as never;
    });
    mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      if (request.params.name === "rpc_fail") throw new McpError(ErrorCode.InternalError, "the server broke");
      return (await call(request, extra)) as never;
    });
    return mcp;
  }

  const server = createServer(async (req, res) => {
    try {
      const body = req.method === "POST" ? await readJson(req) : undefined;
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const sid = req.headers["mcp-session-id"];
      let transport = typeof sid === "string" ? transports.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === "string" || (body as { method?: string } | undefined)?.method !== "initialize") {
          res.writeHead(404, { "content-type": "application/json" });
          return res.end(
            JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }),
          );
        }
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.json ?? false,
          onsessioninitialized: (id) => void transports.set(id, created),
        });
        await build().connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    cancelled,
    changeEchoDescription(text) {
      echoDescription = text;
      for (const tool of echoTools) tool.update({ description: text });
    },
    expireSessions: () => transports.clear(),
    dropConnections: () => server.closeAllConnections(),
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
