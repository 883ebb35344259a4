import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_CONFIG, DEMO_KEYS } from "../../../worker/demo/tenant";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * Legacy (2025-11-25) MCP clients asked mid-call under `wrangler dev` (workerd, real Durable Objects,
 * real sockets): the official v1 client and the v2 client in legacy mode declare elicitation and
 * sampling, are sent the tools' questions on the tools/call stream, and answer with POSTs of their own.
 */

let server: DevServer;
const TOOLS = ["test_elicitation", "test_sampling", "echo"];
beforeAll(async () => {
  const config = { ...DEMO_CONFIG, name: "legacy-ask", tools: TOOLS, policies: { echo: { approval: "user" } } };
  server = await startDevServer({
    entrypoint: "test/fixtures/worker.ts",
    vars: { TOOLGATE_CONFIG: JSON.stringify(config) },
  });
}, 120_000);
afterAll(() => server?.stop());

const auth = { authorization: `Bearer ${DEMO_KEYS.call}` };
const elicited = { action: "accept", content: { username: "ada", email: "ada@example.com" } };
const sampled = (text: string) => ({
  role: "assistant",
  content: { type: "text", text },
  model: "test-model",
  stopReason: "endTurn",
});
const promptOf = (params: any) => String(params.messages[0].content.text);

/** How many records of `tool` end in each status. */
async function statusesOf(tool: string): Promise<Record<string, number>> {
  const res = await fetch(`${server.url}/v1/calls?tool=${tool}`, { headers: auth });
  const { calls } = (await res.json()) as { calls: { record: { status: string } }[] };
  const counts: Record<string, number> = {};
  for (const { record } of calls) counts[record.status] = (counts[record.status] ?? 0) + 1;
  return counts;
}

describe("legacy clients answer what a tool asks, over wrangler dev", () => {
  it("the v1 client (@modelcontextprotocol/sdk) answers an elicitation and a sampling request, and confirms a call", async () => {
    const client = new Client({ name: "dev-v1", version: "1" }, { capabilities: { elicitation: {}, sampling: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return req.params.message.startsWith("Allow") ? { action: "accept", content: { approve: true } } : elicited;
    });
    client.setRequestHandler(
      CreateMessageRequestSchema,
      async (req) => (asked.push(promptOf(req.params)), sampled("Paris")),
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: auth } }),
    );
    const who = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
    const capital = await client.callTool({ name: "test_sampling", arguments: { prompt: "Capital of France?" } });
    const echoed = await client.callTool({ name: "echo", arguments: { text: "confirmed" } });
    await client.close();
    expect(asked).toEqual([
      "Who are you?",
      "Capital of France?",
      expect.stringMatching(/^Allow .*echo.*"text":"confirmed"/),
    ]);
    expect(who.content).toEqual([
      { type: "text", text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' },
    ]);
    expect(capital.content).toEqual([{ type: "text", text: "LLM response: Paris" }]);
    expect(echoed.isError).toBeFalsy();
    expect(JSON.stringify(echoed.content)).toContain("confirmed");
  }, 60_000);

  it("the v2 client (@modelcontextprotocol/client, legacy mode) answers both; each call's rounds are records", async () => {
    const before = await statusesOf("test_sampling");
    const client = new V2Client(
      { name: "dev-v2", version: "1" },
      { versionNegotiation: { mode: "legacy" }, capabilities: { elicitation: {}, sampling: {} } },
    );
    client.setRequestHandler("elicitation/create", async () => elicited as never);
    client.setRequestHandler(
      "sampling/createMessage",
      async (req) => sampled(`echo of ${promptOf(req.params)}`) as never,
    );
    await client.connect(new V2Transport(new URL(`${server.url}/mcp`), { requestInit: { headers: auth } }));
    const who = await client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } });
    const said = await client.callTool({ name: "test_sampling", arguments: { prompt: "hello" } });
    await client.close();
    expect(JSON.stringify(who.content)).toContain('\\"username\\":\\"ada\\"');
    expect(said.content).toEqual([{ type: "text", text: "LLM response: echo of hello" }]);
    // The call asked once (a round that ended input_required), then ran with the answer.
    const after = await statusesOf("test_sampling");
    expect([
      (after.input_required ?? 0) - (before.input_required ?? 0),
      (after.succeeded ?? 0) - (before.succeeded ?? 0),
    ]).toEqual([1, 1]);
  }, 60_000);
});
