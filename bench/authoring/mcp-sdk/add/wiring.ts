import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"; // harness
import { registerAdd } from "./add";
export function wire(server: McpServer) { // harness
  registerAdd(server);
} // harness
