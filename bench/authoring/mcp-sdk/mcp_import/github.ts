import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";

// An McpServer registers tools with zod shapes, not a remote server's JSON Schemas: the import takes
// over the low-level tools/list and tools/call handlers and passes the remote tools through beside the
// server's own (ownTools lists those, callOwn runs them).
export async function importGithub(server: McpServer, ownTools: () => Tool[], callOwn: (name: string, args: unknown) => Promise<CallToolResult>) {
  const github = new Client({ name: "my-app", version: "1.0.0" });
  const requestInit = { headers: { Authorization: `Bearer ${process.env.GH_TOKEN}` } };
  await github.connect(new StreamableHTTPClientTransport(new URL("https://mcp.github.example/mcp"), { requestInit }));
  const remote = new Set((await github.listTools()).tools.map((tool) => tool.name));
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...ownTools(), ...(await github.listTools()).tools] }));
  server.server.setRequestHandler(CallToolRequestSchema, async ({ params }) =>
    remote.has(params.name) ? github.callTool(params) : callOwn(params.name, params.arguments),
  );
}
