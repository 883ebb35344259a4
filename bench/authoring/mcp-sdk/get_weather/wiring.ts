import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"; // harness
import { registerGetWeather } from "./get-weather";
export function wire(server: McpServer) { // harness
  registerGetWeather(server);
} // harness
