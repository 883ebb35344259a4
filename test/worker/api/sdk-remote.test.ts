import { exports } from "cloudflare:workers";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { expect, it } from "vitest";
import { createClient } from "../../../src/client";
import { aiSdkTools, remoteTools } from "../../../src/sdk/ai-sdk";
import { BASE, CALL_KEY, json, request } from "../helpers/requests";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

it("an AI SDK app's calls of a toolgate Worker's tools go through its API: keys, records by call id", async () => {
  const client = createClient({
    baseUrl: BASE,
    key: CALL_KEY,
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
  });
  const tools = await aiSdkTools(remoteTools(client));
  // The demo tenant's tools, as its key sees them.
  expect(Object.keys(tools)).toContain("add");
  const id = `sdk-${crypto.randomUUID()}`;
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId: id, toolName: "add", input: '{"a":20,"b":22}' }],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "42" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
  const { steps } = await generateText({ model, tools, prompt: "20 + 22?", stopWhen: stepCountIs(2) });
  expect(steps[0]!.toolResults[0]!.output).toEqual({ sum: 42 });
  // The Worker's ledger holds the call under the model's id.
  const entry = await json(await request(`/v1/calls/${id}`));
  expect(entry.record).toMatchObject({ callId: id, tool: "add", status: "succeeded" });
});
