import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { ElicitRequestSchema, CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { faultTenant } from "./fault-helpers";
import { json, request } from "./helpers";
import { MCP_URL, mcpFetch, type McpTarget } from "./mcp-helpers";

const TOOLS = ["test_elicitation", "test_sampling", "echo"];

function tenant(prefix: string, patch: Record<string, unknown> = {}, vars: Record<string, string> = {}) {
  const { name, env } = faultTenant(prefix, { tools: TOOLS, ...patch });
  const all = { ...env, ...vars } as Record<string, string>;
  return { name, env: all, target: { vars: all } as McpTarget };
}

describe("smoke", () => {
  it("v1 answers an elicitation", async () => {
    const { env, target } = tenant("lask");
    const client = new Client({ name: "t", version: "1" }, { capabilities: { elicitation: {}, sampling: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { username: "ada", email: "ada@example.com" } }));
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", content: { type: "text", text: "Paris" }, model: "m" }));
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: mcpFetch(target) }));
    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
    console.log(JSON.stringify(result));
    const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "Capital?" } });
    console.log(JSON.stringify(sampled));
    await client.close();
    const records = (await json(await request("/v1/calls", { env }))).calls.map((c: any) => [c.record.callId, c.record.status]);
    console.log(JSON.stringify(records));
    expect(result.isError).toBeFalsy();
  });
});
