import { Agent, run, setTracingDisabled } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { describe, expect, it } from "vitest";
import { agentTools, localTools } from "../../../src/sdk/openai-agents";
import { recording, registry } from "./fixtures";

/** The OpenAI Agents SDK's own run loop runs toolgate's tools: every call goes through the pipeline. */

// No trace leaves the process.
setTracingDisabled(true);

describe("agentTools", () => {
  it("offers each tool with its JSON Schema, not strict: toolgate validates", async () => {
    const tools = await agentTools(registry);
    expect(tools.map((tool) => [tool.name, tool.strict])).toEqual([
      ["add", false],
      ["wipe", false],
    ]);
    expect(tools[0]!.parameters).toEqual(registry.get("add")!.inputSchema);
  });

  it("runs the model's calls through the pipeline: results, errors as results, a record per call id", async () => {
    const { hooks, records } = recording();
    const model = new ScriptedModel([
      [
        functionCall("add", { a: 2, b: 3 }, { callId: "call_ok" }),
        functionCall("add", '{"a":"two"}', { callId: "call_bad" }),
        functionCall("wipe", {}, { callId: "call_denied" }),
      ],
      [assistantMessage("done")],
    ]);
    const agent = new Agent({
      name: "helper",
      model,
      tools: await agentTools(localTools({ registry, hooks, tenant: "app" })),
    });
    const result = await run(agent, "add 2 and 3");
    expect(result.finalOutput).toBe("done");
    // The model's second turn carries toolgate's answers, by call id.
    const outputs = Object.fromEntries(
      // The runner hands a model the conversation as items (a plain string only for a first turn's text).
      [model.calls[1]!.request.input]
        .flat()
        .flatMap((item) =>
          typeof item === "object" && item.type === "function_call_result"
            ? [[item.callId, JSON.stringify(item.output)]]
            : [],
        ),
    );
    expect(outputs.call_ok).toContain('{\\"sum\\":5}');
    expect(outputs.call_bad).toMatch(/Error \[invalid_arguments\]/);
    expect(outputs.call_denied).toMatch(/Error \[denied\]: .*not here/);
    const byId = Object.fromEntries(records.map((record) => [record.callId, record]));
    expect(byId.call_ok).toMatchObject({ tool: "add", tenant: "app", status: "succeeded" });
    expect(byId.call_bad?.status).toBe("rejected");
    expect(byId.call_denied?.status).toBe("denied");
  });
});
