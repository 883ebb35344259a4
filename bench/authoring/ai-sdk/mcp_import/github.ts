import { createMCPClient } from "@ai-sdk/mcp";

export async function githubTools() {
  const github = await createMCPClient({
    transport: { type: "http", url: "https://mcp.github.example/mcp", headers: { Authorization: `Bearer ${process.env.GH_TOKEN}` } },
  });
  return github.tools();
}
