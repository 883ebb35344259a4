/**
 * The OpenAI Agents SDK (@openai/agents-core): `tool({ parameters: zod, execute })`, then the
 * function tool's own `invoke(runContext, argumentsJson, { toolCall })` — what the runner calls per
 * function call (JSON.parse, zod parse, execute, the default error function turning a failure into
 * text for the model). The runner's tracing span and hooks around it are not included.
 */
import { RunContext, tool } from "@openai/agents-core";
import { z } from "zod";
import { addFn, type AssistantMessage, type OpenAIToolCall, type Peer } from "./workload";

const add = tool({
  name: "add",
  description: "Add two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async (args) => addFn(args),
});

export const openaiAgents: Peer = {
  name: "openai-agents",
  path: "FunctionTool.invoke(runContext, argsJson) (zod)",
  async setup() {
    const runContext = new RunContext();
    const invoke = async (call: OpenAIToolCall) => {
      const details = {
        toolCall: {
          type: "function_call" as const,
          callId: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        },
      };
      const output: unknown = await add.invoke(runContext, call.function.arguments, details);
      return {
        role: "tool",
        tool_call_id: call.id,
        content: typeof output === "string" ? output : JSON.stringify(output),
      };
    };
    return {
      run: async (message: AssistantMessage) => JSON.stringify(await Promise.all(message.tool_calls.map(invoke))),
    };
  },
};
