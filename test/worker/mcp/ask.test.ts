import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { faultTenant } from "../helpers/faults";
import { json, request } from "../helpers/requests";
import { connect, MCP_URL, mcpFetch, MODERN, modernPost, type McpTarget } from "../helpers/mcp";

/**
 * Tools that ask the person who called them (ctx.ask) and policy approval: "user", over MCP
 * 2026-07-28: the call ends with an InputRequiredResult, the client answers by calling again with
 * inputResponses and the signed requestState, and the call is made again with the answers.
 */

const ASK_TOOLS = [
  "test_input_required_result_elicitation",
  "test_input_required_result_multi_round",
  "test_input_required_result_capabilities",
  "test_url_elicitation",
  "echo",
];

function tenant(prefix: string, patch: Record<string, unknown> = {}) {
  const { env } = faultTenant(prefix, { tools: ASK_TOOLS, ...patch });
  return { env, target: { vars: env as Record<string, string> } as McpTarget };
}

const caps = (capabilities: Record<string, unknown>) => ({
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});

async function call(
  target: McpTarget,
  name: string,
  extra: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = { elicitation: {} },
) {
  const res = await modernPost("tools/call", { name, arguments: {}, ...extra }, { target, meta: caps(capabilities) });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * The v2 client pinned to 2026-07-28, answering elicitations with `answer` (and counting
 * them); `elicitation`: the modes it declares.
 */
async function v2WithElicitation(
  target: McpTarget,
  answer: (message: string) => Record<string, unknown>,
  elicitation: Record<string, Record<string, never>> = {},
) {
  const client = new V2Client(
    { name: "ask-test", version: "1" },
    { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (req) => {
    const message = (req.params as { message: string }).message;
    asked.push(message);
    return answer(message) as never;
  });
  await client.connect(new V2Transport(new URL(MCP_URL), { fetch: mcpFetch(target) }));
  return { client, asked };
}

describe("ctx.ask over MCP 2026-07-28 (multi-round-trip requests)", () => {
  it("the v2 client answers the tool's question and gets its result; both rounds are records", async () => {
    const { env, target } = tenant("ask");
    const { client, asked } = await v2WithElicitation(target, () => ({ action: "accept", content: { name: "Ada" } }));
    const result = await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
    await client.close();
    expect(asked).toEqual(["What is your name?"]);
    expect(result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    const statuses = (
      await json(await request("/v1/calls?tool=test_input_required_result_elicitation", { env }))
    ).calls.map((c: any) => c.record.status);
    expect(statuses.sort()).toEqual(["input_required", "succeeded"]);
  });

  it("asks in rounds: the answers so far travel signed in requestState, an altered or foreign state is refused", async () => {
    const { target } = tenant("askr");
    const first = (await call(target, "test_input_required_result_multi_round")).body.result;
    expect(first).toMatchObject({
      resultType: "input_required",
      inputRequests: { step1: { method: "elicitation/create" } },
    });
    const name = { step1: { action: "accept", content: { name: "Ada" } } };
    const second = (
      await call(target, "test_input_required_result_multi_round", {
        inputResponses: name,
        requestState: first.requestState,
      })
    ).body.result;
    expect(second).toMatchObject({
      resultType: "input_required",
      inputRequests: { step2: { method: "elicitation/create" } },
    });
    expect(Object.keys(second.inputRequests)).toEqual(["step2"]);
    const color = { step2: { action: "accept", content: { color: "green" } } };
    const done = (
      await call(target, "test_input_required_result_multi_round", {
        inputResponses: color,
        requestState: second.requestState,
      })
    ).body.result;
    expect(done).toMatchObject({ resultType: "complete", content: [{ text: "Ada likes green." }] });

    const tampered = await call(target, "test_input_required_result_multi_round", {
      inputResponses: color,
      requestState: `${second.requestState.slice(0, -2)}AA`,
    });
    expect(tampered.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("integrity") });
    const foreign = await call(target, "test_input_required_result_elicitation", {
      inputResponses: color,
      requestState: second.requestState,
    });
    expect(foreign.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("another call") });
    // The answers a state carries are bounded as all of a call's answers are, and the refusal names the bound.
    const long = { step1: { action: "accept", content: { name: "n".repeat(70_000) } } };
    const tooLong = await call(target, "test_input_required_result_multi_round", { inputResponses: long });
    expect(tooLong.body.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        new RegExp(
          String.raw`^tools/call: The answers so far would take 70\d{3} characters of JSON, ` +
            String.raw`over the limit of 65536 characters for all of one call's answers\.$`,
        ),
      ),
    });
    expect(
      (await call(target, "test_input_required_result_multi_round", { inputResponses: { step1: 5 } })).body.error.code,
    ).toBe(-32602);
    expect(
      (await call(target, "test_input_required_result_multi_round", { inputResponses: null })).body.error.code,
    ).toBe(-32602);
  });

  it("asks only what the request's client declared it answers", async () => {
    const { target } = tenant("askc");
    const samplingOnly = (await call(target, "test_input_required_result_capabilities", {}, { sampling: {} })).body
      .result;
    expect(Object.values(samplingOnly.inputRequests).map((r: any) => r.method)).toEqual(["sampling/createMessage"]);
    // A tool asking what the request's client did not declare: 400, -32021, naming the capability.
    const none = await call(target, "test_input_required_result_elicitation", {}, { sampling: {} });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  it("elicitation modes: a URL-mode question is never sent to a client that declared forms only (elicitation: {} is form mode); declared, it is asked", async () => {
    const { target } = tenant("askurl");
    const formOnlyDeclarations: Record<string, Record<string, never>>[] = [{}, { form: {} }];
    for (const formOnly of formOnlyDeclarations) {
      const { client, asked } = await v2WithElicitation(target, () => ({ action: "accept" }), formOnly);
      const refused = await client.callTool({ name: "test_url_elicitation", arguments: {} }).then(
        () => undefined,
        (error: { code?: number; message?: string; data?: unknown }) => error,
      );
      await client.close();
      expect(asked).toEqual([]);
      expect(refused).toMatchObject({
        code: -32021,
        message: expect.stringContaining("elicitation.url"),
        data: { requiredCapabilities: { elicitation: { url: {} } } },
      });
    }
    const both = await v2WithElicitation(target, () => ({ action: "accept" }), { form: {}, url: {} });
    const result = await both.client.callTool({ name: "test_url_elicitation", arguments: {} });
    await both.client.close();
    expect(both.asked).toEqual(["Connect your example.com account"]);
    expect(result.content).toEqual([{ type: "text", text: "Came back: accept." }]);
    // A client that declared URL mode only is asked URL-mode questions, and never a form.
    const urlOnly = (await call(target, "test_url_elicitation", {}, { elicitation: { url: {} } })).body.result;
    expect(urlOnly).toMatchObject({
      resultType: "input_required",
      inputRequests: { connect: { params: { mode: "url", url: "https://example.com/connect" } } },
    });
    const noForms = await call(target, "test_input_required_result_elicitation", {}, { elicitation: { url: {} } });
    expect(noForms.status).toBe(400);
    expect(noForms.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });
});

describe('approval: "user": the person who made the call confirms it', () => {
  const userApproval = { policies: { echo: { approval: "user" } } };

  it("the v2 client is asked with the call's (masked) arguments; approved, the call runs; declined, it is denied", async () => {
    const { env, target } = tenant("uapp", userApproval);
    const yes = await v2WithElicitation(target, () => ({ action: "accept", content: { approve: true } }));
    const ran = await yes.client.callTool({ name: "echo", arguments: { text: "hi" } });
    await yes.client.close();
    expect(yes.asked).toEqual([expect.stringMatching(/^Allow .*echo.*"text":"hi"/)]);
    expect(ran.isError).toBeFalsy();
    expect(JSON.stringify(ran.content)).toContain("hi");

    const no = await v2WithElicitation(target, () => ({ action: "decline" }));
    const refused = await no.client.callTool({ name: "echo", arguments: { text: "no" } });
    await no.client.close();
    expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("did not approve") }] });
    const records = (await json(await request("/v1/calls?tool=echo", { env }))).calls.map((c: any) => c.record.status);
    expect(records.sort()).toEqual(["denied", "input_required", "input_required", "succeeded"]);
  });

  it("a client that cannot be asked (the v1 client, 2025-11-25) has the call parked for an admin instead", async () => {
    const { target } = tenant("uappl", userApproval);
    const { client } = await connect(target);
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    await client.close();
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("needs approval") }] });
  });
});
