import { MultiServerMCPClient } from "@langchain/mcp-adapters";

export function githubTools() {
  const client = new MultiServerMCPClient({
    mcpServers: { github: { url: "https://mcp.github.example/mcp", headers: { Authorization: `Bearer ${process.env.GH_TOKEN}` } } },
  });
  return client.getTools();
}
