import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"; // harness
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"; // harness
import { importGithub } from "./github";
export async function wire(server: McpServer, ownTools: () => Tool[], callOwn: (name: string, args: unknown) => Promise<CallToolResult>) { // harness
  await importGithub(server, ownTools, callOwn);
} // harness
