import { MCPServerStreamableHttp } from "@openai/agents-core";

export async function githubServer() {
  const github = new MCPServerStreamableHttp({
    url: "https://mcp.github.example/mcp",
    requestInit: { headers: { Authorization: `Bearer ${process.env.GH_TOKEN}` } },
  });
  await github.connect();
  return github;
}
