import { expect, it } from "vitest";
import { remoteMcpLoaded } from "../../../worker/remote-mcp-library";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";
import { json, request, tenantConfig } from "../helpers/requests";

/**
 * The remote MCP client is a module apart, which readyTenant loads before it builds a tenant that may
 * have `mcp` servers. Nothing in this file loads it otherwise: these run in order, in the file's own isolate.
 */

it("serves a tenant without MCP servers, with declared HTTP tools, without loading the client", async () => {
  const http = [{ name: "ping", description: "Ping", input: { type: "object" }, url: "https://api.example.com/p" }];
  for (const config of [tenantConfig(), adapterConfig(`plain-${uid()}`, { http })]) {
    const res = await request("/v1/tools", { env: { TOOLGATE_CONFIG: config } });
    expect(res.status).toBe(200);
  }
  expect(remoteMcpLoaded()).toBe(false);
});

it("loads it for a tenant with an MCP server, whose tools are listed and called through it", async () => {
  // With the credential test/worker/adapters/mcp.test.ts expects on every request the shared server sees.
  const auth = { type: "bearer", secret: "MCP" };
  const mcp = [{ name: "t", url: upstreams.mcp, prefix: "t_", tools: ["echo"], auth }];
  const env = {
    TOOLGATE_CONFIG: adapterConfig(`remote-${uid()}`, { mcp, secrets: { MCP: "ADAPTER_MCP_TOKEN" } }),
    ADAPTER_MCP_TOKEN: "mcp-token-for-the-test-server",
  };
  const listed = await json(await request("/v1/tools", { env }));
  expect(listed.tools.map((tool: { name: string }) => tool.name)).toContain("t_echo");
  expect(remoteMcpLoaded()).toBe(true);
  const { messages } = await callTools(env, ["t_echo", { text: "hi" }]);
  expect(messages[0]!.content).toBe("echo: hi");
});
