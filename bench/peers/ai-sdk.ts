/**
 * The Vercel AI SDK (`ai`): `tool({ inputSchema: zod, execute })`, run the way the SDK itself runs
 * tools — there is no exported per-call executor, so the path is generateText() for one step with an
 * in-process model whose doGenerate turns the OpenAI assistant message into tool-call parts (what
 * @ai-sdk/openai does with a response). generateText then parses and validates each input
 * (parseToolCall: safeParseJSON with the schema), executes it (executeToolCall: telemetry span,
 * callbacks, executeTool), and builds the tool message; we encode that as OpenAI tool messages (what
 * @ai-sdk/openai does on the next request). Includes generateText's per-step bookkeeping, among it
 * converting the tool's zod schema to JSON Schema for the model request on every call.
 *
 * ai-sdk-tool isolates the tool part: the same helpers doParseToolCall and executeToolCall call
 * (asSchema, safeParseJSON with the schema, executeTool), without generateText, telemetry spans or
 * callbacks — a lower bound for the SDK's tool execution, not a path an app calls.
 */
import { asSchema, executeTool, safeParseJSON } from "@ai-sdk/provider-utils";
import { generateText, InvalidToolInputError, tool, type LanguageModel } from "ai";
import { z } from "zod";
import { addFn, type AssistantMessage, type Peer } from "./workload";

type Model = Exclude<LanguageModel, string>;
type Generate = Extract<Model, { specificationVersion: "v3" }>["doGenerate"];
type GenerateResult = Awaited<ReturnType<Generate>>;

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 0, reasoning: undefined },
};

/** A model that answers every request with the given assistant message's tool calls. */
function modelAnswering(pending: { message: AssistantMessage }): Model {
  return {
    specificationVersion: "v3",
    provider: "bench",
    modelId: "bench",
    supportedUrls: {},
    async doGenerate() {
      return {
        content: pending.message.tool_calls.map((c) => ({
          type: "tool-call" as const,
          toolCallId: c.id,
          toolName: c.function.name,
          input: c.function.arguments,
        })),
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    },
    async doStream() {
      throw new Error("not used");
    },
  };
}

const tools = {
  add: tool({
    description: "Add two numbers",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async (args) => addFn(args),
  }),
};

export const aiSdk: Peer = {
  name: "ai-sdk",
  path: "generateText, 1 step, in-process model (zod)",
  async setup() {
    const pending = { message: null as unknown as AssistantMessage };
    const model = modelAnswering(pending);
    return {
      async run(message: AssistantMessage) {
        pending.message = message;
        const result = await generateText({ model, tools, prompt: "add" });
        const toolMessage = result.response.messages.find((m) => m.role === "tool");
        if (!toolMessage || typeof toolMessage.content === "string") throw new Error("no tool message");
        const byId = new Map<string, string>();
        for (const part of toolMessage.content) {
          if (part.type !== "tool-result") continue;
          const out = part.output;
          byId.set(
            part.toolCallId,
            out.type === "json"
              ? JSON.stringify(out.value)
              : out.type === "text" || out.type === "error-text"
                ? out.value
                : JSON.stringify(out),
          );
        }
        return JSON.stringify(
          message.tool_calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: byId.get(c.id) ?? "" })),
        );
      },
    };
  },
};

async function toolPart(call: AssistantMessage["tool_calls"][number]): Promise<string> {
  const add = tools.add;
  const parsed = await safeParseJSON({ text: call.function.arguments, schema: asSchema(add.inputSchema) });
  if (!parsed.success) {
    return new InvalidToolInputError({
      toolName: call.function.name,
      toolInput: call.function.arguments,
      cause: parsed.error,
    }).message;
  }
  let output: unknown;
  for await (const part of executeTool({
    execute: add.execute!.bind(add),
    input: parsed.value,
    options: { toolCallId: call.id, messages: [] },
  })) {
    if (part.type === "final") output = part.output;
  }
  return JSON.stringify(output);
}

export const aiSdkTool: Peer = {
  name: "ai-sdk-tool",
  path: "safeParseJSON(zod) + executeTool — generateText's tool helpers alone",
  async setup() {
    return {
      run: async (message: AssistantMessage) =>
        JSON.stringify(
          await Promise.all(
            message.tool_calls.map(async (c) => ({ role: "tool", tool_call_id: c.id, content: await toolPart(c) })),
          ),
        ),
    };
  },
};
