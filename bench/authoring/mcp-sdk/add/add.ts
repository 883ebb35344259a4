import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export function registerAdd(server: McpServer) {
  server.registerTool(
    "add",
    { description: "Add two numbers.", inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    async ({ a, b }) => {
      const output = { sum: a + b };
      return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
    },
  );
}
