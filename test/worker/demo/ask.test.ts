import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { eventually } from "../../wait";
import { json, request } from "../helpers/requests";
import { v1Client, v2LegacyClient } from "../helpers/mcp-ask-legacy";
import { MCP_URL, mcpFetch, MODERN, type McpTarget } from "../helpers/mcp";

/**
 * The demo tenant's tool that asks (tools/pick_option.ts), as `npm run dev` serves it: through the
 * official MCP clients of both eras, and through the HTTP API, whose caller answers through the call's record.
 */

function demo(prefix: string) {
  const vars = {
    TOOLGATE_CONFIG: JSON.stringify({ ...DEMO_CONFIG, name: `${prefix}-${crypto.randomUUID().slice(0, 8)}` }),
  };
  return { env: vars, target: { vars } as McpTarget };
}

const ARGS = { question: "Which colour for the new logo?", options: ["red", "green", "blue"] };
const choose = (choice: string) => ({ action: "accept", content: { choice } });

describe("pick_option, the demo tool that asks", () => {
  it("the v2 client (2026-07-28) is asked with the options and gets the choice back", async () => {
    const { target } = demo("dpick2");
    const client = new V2Client(
      { name: "demo", version: "1" },
      { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: {} } },
    );
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", async (req) => (asked.push(req.params), choose("blue") as never));
    await client.connect(new V2Transport(new URL(MCP_URL), { fetch: mcpFetch(target) }));
    const listed = (await client.listTools()).tools.find((tool) => tool.name === "pick_option");
    const result = await client.callTool({ name: "pick_option", arguments: ARGS });
    await client.close();
    expect(listed?.annotations).toMatchObject({ readOnlyHint: true });
    expect(asked).toEqual([
      expect.objectContaining({
        message: "Which colour for the new logo?",
        requestedSchema: {
          type: "object",
          properties: { choice: { type: "string", title: "Your choice", enum: ["red", "green", "blue"] } },
          required: ["choice"],
        },
      }),
    ]);
    expect(result.structuredContent).toEqual({ answered: "accept", choice: "blue" });
  });

  it("legacy clients that declare elicitation (v1 and v2 in legacy mode) are asked on the call's stream", async () => {
    const { target } = demo("dpickl");
    const v1 = await v1Client(target, { elicit: () => choose("red") });
    const picked = await v1.client.callTool({ name: "pick_option", arguments: ARGS });
    const declined = await (async () => {
      const other = await v1Client(target, { elicit: () => ({ action: "decline" }) });
      const result = await other.client.callTool({
        name: "pick_option",
        arguments: { question: "Deploy now?", options: ["yes", "no"] },
      });
      await other.client.close();
      return result;
    })();
    await v1.client.close();
    expect(v1.asked).toEqual(["elicitation/create"]);
    expect(picked.structuredContent).toEqual({ answered: "accept", choice: "red" });
    expect(declined.structuredContent).toEqual({ answered: "decline" });

    const v2 = await v2LegacyClient(target, { elicit: () => choose("green"), sample: () => ({}) });
    const result = await v2.client.callTool({ name: "pick_option", arguments: ARGS });
    await v2.client.close();
    expect(v2.asked).toEqual(["elicitation/create"]);
    expect(result.structuredContent).toEqual({ answered: "accept", choice: "green" });
  });

  it("an answer that is not one of the options is an error the model can read", async () => {
    const { target } = demo("dpickbad");
    const { client } = await v1Client(target, { elicit: () => choose("purple") });
    const result = await client.callTool({ name: "pick_option", arguments: ARGS });
    await client.close();
    expect(result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("not one of the options offered (red, green, blue)") }],
    });
  });

  it("over the HTTP API the call waits for the question's answer, given through POST /v1/calls/:id/input", async () => {
    const { env } = demo("dpickhttp");
    const id = `pick-${crypto.randomUUID().slice(0, 8)}`;
    const res = await request("/v1/calls/openai", {
      env,
      body: [{ id, type: "function", function: { name: "pick_option", arguments: JSON.stringify(ARGS) } }],
    });
    expect(res.status).toBe(200);
    const [record] = (await json(res)).calls;
    expect(record).toMatchObject({
      status: "awaiting_input",
      error: {
        code: "input_required",
        inputRequests: {
          choice: { method: "elicitation/create", params: { message: "Which colour for the new logo?" } },
        },
      },
    });
    const body = { inputResponses: { choice: choose("green") } };
    expect((await request(`/v1/calls/${id}/input`, { env, body })).status).toBe(202);
    let ended: any;
    const read = async () => (ended = (await json(await request(`/v1/calls/${id}?wait=5`, { env }))).record);
    await eventually(async () => (await read()).status === "succeeded", `${id} succeeded`);
    expect(ended.output.structured).toEqual({ answered: "accept", choice: "green" });
  });
});
