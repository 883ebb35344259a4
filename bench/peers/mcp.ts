/**
 * The MCP TypeScript SDK (@modelcontextprotocol/sdk): an McpServer with add registered (zod input
 * schema). Two paths:
 *   mcp-handler: the server's own tools/call request handler called directly (request schema parse,
 *     tool lookup, zod validation, the callback, output check) — the least an MCP server does per call;
 *   mcp-roundtrip: Client.callTool over InMemoryTransport, JSON-RPC both ways with result validation.
 * The app's side is the same for both: parse the OpenAI arguments, call, turn the CallToolResult's
 * text into the tool message.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { addFn, type AssistantMessage, type OpenAIToolCall, type Peer, type Runner } from "./workload";

function createServer(): McpServer {
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async (args) => ({
      content: [{ type: "text", text: JSON.stringify(addFn(args)) }],
    }),
  );
  return server;
}

const toolMessage = (call: OpenAIToolCall, result: CallToolResult) => ({
  role: "tool",
  tool_call_id: call.id,
  content: result.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
});

/** Runs every call of the message through `call` concurrently and encodes the answers in order. */
function runnerFor(
  call: (name: string, args: unknown) => Promise<CallToolResult>,
  close?: () => Promise<void>,
): Runner {
  return {
    async run(message: AssistantMessage) {
      const results = await Promise.all(
        message.tool_calls.map((c) => call(c.function.name, JSON.parse(c.function.arguments))),
      );
      return JSON.stringify(message.tool_calls.map((c, i) => toolMessage(c, results[i]!)));
    },
    close,
  };
}

type Handler = (request: unknown, extra: unknown) => Promise<CallToolResult>;

export const mcpHandler: Peer = {
  name: "mcp-handler",
  path: "McpServer tools/call handler called directly (zod)",
  async setup() {
    const server = createServer();
    // The SDK keeps handlers in a private map; this is the function its transport loop would call.
    const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
    const handler = handlers.get("tools/call");
    if (!handler) throw new Error("McpServer registered no tools/call handler");
    const signal = new AbortController().signal;
    let requestId = 0;
    const extra = () => ({
      signal,
      requestId: ++requestId,
      sendNotification: async () => {},
      sendRequest: async () => {
        throw new Error("not connected");
      },
    });
    return runnerFor((name, args) => handler({ method: "tools/call", params: { name, arguments: args } }, extra()));
  },
};

export const mcpRoundTrip: Peer = {
  name: "mcp-roundtrip",
  path: "Client.callTool ↔ McpServer over InMemoryTransport (zod)",
  async setup() {
    const server = createServer();
    const client = new Client({ name: "bench-client", version: "1.0.0" });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    return runnerFor(
      async (name, args) =>
        (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult,
      async () => {
        await client.close();
        await server.close();
      },
    );
  },
};
