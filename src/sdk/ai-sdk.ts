/**
 * toolgate's tools as Vercel AI SDK tools (`toolgate/ai-sdk`): hand them to generateText or streamText
 * and keep the app's own model loop, while every call goes through toolgate (policy, gates, records).
 *
 *   const tools = await aiSdkTools(remoteTools(createClient({ baseUrl, key })));
 *   const { text } = await generateText({ model, tools, prompt, stopWhen: stepCountIs(5) });
 *
 * @module toolgate/ai-sdk
 */
import { dynamicTool, jsonSchema, type JSONSchema7, type Tool as AiTool } from "ai";
import { modelValue } from "./output";
import { sourceOf, type ToolsInput } from "./source";

export { localTools, remoteTools } from "./source";
export type { OfferedTool, ToolSource, ToolsInput } from "./source";

/**
 * The tools of a registry (run here) or a source (localTools, remoteTools), keyed by name. The AI SDK
 * does not validate the arguments: toolgate does, and answers the model what was wrong.
 */
export async function aiSdkTools(input: ToolsInput): Promise<Record<string, AiTool>> {
  const source = sourceOf(input);
  const tools: Record<string, AiTool> = {};
  for (const offered of await source.list()) {
    tools[offered.name] = dynamicTool({
      description: offered.description,
      inputSchema: jsonSchema(offered.inputSchema as JSONSchema7),
      execute: async (args, { toolCallId, abortSignal }) =>
        modelValue(await source.call(toolCallId, offered.name, args, abortSignal)),
    });
  }
  return tools;
}
