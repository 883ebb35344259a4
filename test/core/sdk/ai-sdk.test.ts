import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { aiSdkTools, localTools } from "../../../src/sdk/ai-sdk";
import { recording, registry } from "./fixtures";

/** The Vercel AI SDK's own loop (generateText) runs toolgate's tools: every call goes through the pipeline. */

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const toolCall = (toolCallId: string, toolName: string, input: string) =>
  ({ type: "tool-call", toolCallId, toolName, input }) as const;

/** A model that asks for these calls, then answers text. */
function modelCalling(...calls: ReturnType<typeof toolCall>[]) {
  return new MockLanguageModelV3({
    doGenerate: [
      { content: calls, finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [] },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      },
    ],
  });
}

describe("aiSdkTools", () => {
  it("offers each tool with its JSON Schema, toolgate validating the arguments", async () => {
    const tools = await aiSdkTools(registry);
    expect(Object.keys(tools)).toEqual(["add", "wipe"]);
    expect(tools.add!.description).toBe("Add two numbers.");
  });

  it("runs the model's calls through the pipeline: results, errors as results, a record per call id", async () => {
    const { hooks, records } = recording();
    const model = modelCalling(
      toolCall("call_ok", "add", '{"a":2,"b":3}'),
      toolCall("call_bad", "add", '{"a":"two"}'),
      toolCall("call_denied", "wipe", "{}"),
    );
    const { steps, text } = await generateText({
      model,
      tools: await aiSdkTools(localTools({ registry, hooks, tenant: "app" })),
      prompt: "add 2 and 3",
      stopWhen: stepCountIs(3),
    });
    expect(text).toBe("done");
    const outputs = Object.fromEntries(steps[0]!.toolResults.map((result) => [result.toolCallId, result.output]));
    expect(outputs.call_ok).toEqual({ sum: 5 });
    expect(outputs.call_bad).toMatch(/^Error \[invalid_arguments\]: .*a/);
    expect(outputs.call_denied).toMatch(/^Error \[denied\]: .*not here/);
    // The model's next turn carries toolgate's answers.
    const prompt = JSON.stringify(model.doGenerateCalls[1]!.prompt);
    expect(prompt).toContain("invalid_arguments");
    // Each call recorded under the model's own id, with the options' tenant.
    const byId = Object.fromEntries(records.map((record) => [record.callId, record]));
    expect(byId.call_ok).toMatchObject({ tool: "add", tenant: "app", status: "succeeded" });
    expect(byId.call_bad?.status).toBe("rejected");
    expect(byId.call_denied?.status).toBe("denied");
  });
});
