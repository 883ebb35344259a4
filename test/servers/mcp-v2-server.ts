import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, inputRequired, legacyStatelessFallback, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

/**
 * An MCP server on the official SDK v2 (`@modelcontextprotocol/server`) on 127.0.0.1, in one of
 * its eras:
 *   "dual"    createMcpHandler as shipped: 2026-07-28 per request, 2025 traffic served statelessly
 *   "modern"  createMcpHandler with legacy: "reject" (2026-07-28 only)
 *   "legacy"  the SDK's stateless 2025 serving alone (initialize first; no server/discover)
 */
export type V2Era = "dual" | "modern" | "legacy";

export interface V2TestServer {
  url: string;
  /** Every POST: its headers and JSON body. */
  requests: { headers: Record<string, string>; body: { method?: string; params?: Record<string, unknown> } }[];
  /** Calls of the slow tool whose request was aborted (the client closed its stream or cancelled). */
  aborted: number;
  /** Serve another era from now on (an upgrade in place: same URL, same connections). */
  become(era: V2Era): void;
  close(): Promise<void>;
}

/** The tools every era serves (one factory, as the SDK intends). */
function build(server: V2TestServer): McpServer {
  const mcp = new McpServer({ name: "v2-test-server", version: "2.4.0" });
  mcp.registerTool(
    "echo",
    {
      title: "Echo",
      description: "Echo the text back",
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false },
    },
    async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
  );
  mcp.registerTool(
    "add",
    {
      description: "Add two numbers",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  mcp.registerTool("annotated", { description: "Content with annotations", inputSchema: z.object({}) }, async () => ({
    content: [
      { type: "text", text: "for the user", annotations: { audience: ["user"], priority: 0.9 } },
      {
        type: "text",
        text: "for the model",
        annotations: { audience: ["assistant"], priority: 0.2, lastModified: "2026-01-02T03:04:05Z" },
      },
    ],
  }));
  mcp.registerTool(
    "slow",
    { description: "Waits, reporting progress", inputSchema: z.object({ ms: z.number() }) },
    async ({ ms }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined)
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2, message: "halfway" },
        });
      const signal = ctx.mcpReq.signal;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          server.aborted++;
          resolve();
        });
      });
      return { content: [{ type: "text", text: "done" }] };
    },
  );
  mcp.registerTool(
    "region",
    {
      description: "Says which region it ran in (the region is mirrored into a header)",
      inputSchema: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }), query: z.string() }),
    },
    async ({ region, query }) => ({ content: [{ type: "text", text: `${query} in ${region}` }] }),
  );
  mcp.registerTool(
    "summarise",
    { description: "Asks the client's model for a summary (sampling)", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) =>
      inputRequired({
        inputRequests: {
          summary: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: `Summarise: ${text}` } }],
            maxTokens: 50,
          }),
        },
      }),
  );
  mcp.registerTool(
    "two_rounds",
    { description: "Answers on the second round (request state only)", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<string>();
      if (state === undefined) return inputRequired({ requestState: "round-2" });
      return { content: [{ type: "text", text: `finished with ${state}` }] };
    },
  );
  return mcp;
}

async function toRequest(req: IncomingMessage): Promise<{ request: Request; body: unknown }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const init: RequestInit = { method: req.method ?? "GET", headers, ...(text ? { body: text } : {}) };
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { request: new Request(`http://127.0.0.1${req.url ?? "/"}`, init), body };
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  // The client closing its side is how a 2026 request is cancelled: stop reading the handler's stream.
  res.on("close", () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // cancelled
  }
  res.end();
}

export async function startV2Server(era: V2Era): Promise<V2TestServer> {
  const state: V2TestServer = {
    url: "",
    requests: [],
    aborted: 0,
    become: (next) => void (handler = handlerFor(next)),
    close: async () => undefined,
  };
  const factory = () => build(state);
  const handlerFor = (served: V2Era) =>
    served === "legacy"
      ? { fetch: legacyStatelessFallback(factory), close: async () => undefined }
      : createMcpHandler(factory, served === "modern" ? { legacy: "reject" } : {});
  let handler = handlerFor(era);
  const http = createServer(async (req, res) => {
    try {
      const { request, body } = await toRequest(req);
      if (req.method === "POST") {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === "string"),
        );
        state.requests.push({ headers, body: (body ?? {}) as V2TestServer["requests"][number]["body"] });
      }
      const abort = new AbortController();
      res.on("close", () => abort.abort());
      await send(res, await handler.fetch(new Request(request, { signal: abort.signal })));
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
