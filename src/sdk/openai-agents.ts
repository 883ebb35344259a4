/**
 * toolgate's tools as OpenAI Agents SDK tools (`toolgate/openai-agents`): give them to an Agent and keep
 * the app's own run loop, while every call goes through toolgate (policy, gates, records).
 *
 *   const agent = new Agent({ name: "helper", tools: await agentTools(remoteTools(client)) });
 *
 * @module toolgate/openai-agents
 */
import { tool, type FunctionTool, type UnknownContext } from "@openai/agents-core";
import type { JsonObjectSchemaNonStrict } from "@openai/agents-core/types";
import { modelValue } from "./output";
import { sourceOf, type ToolsInput } from "./source";

export { localTools, remoteTools } from "./source";
export type { OfferedTool, ToolSource, ToolsInput } from "./source";

/** The arguments' schema as the SDK takes it, not strict: toolgate's own JSON Schema goes to the model. */
type Parameters = JsonObjectSchemaNonStrict<Record<string, never>>;

/** A toolgate tool as the Agents SDK runs it: a function tool answering the model text. */
export type ToolgateAgentTool = FunctionTool<UnknownContext, Parameters, string>;

/** One call's id: the model's, so toolgate's record and idempotency follow the model's call. */
const callIdOf = (details: { toolCall?: { callId?: string } } | undefined): string =>
  details?.toolCall?.callId ?? `call_${crypto.randomUUID()}`;

/**
 * The tools of a registry (run here) or a source (localTools, remoteTools), as non-strict function
 * tools: toolgate validates the arguments and answers the model what was wrong.
 */
export async function agentTools(input: ToolsInput): Promise<ToolgateAgentTool[]> {
  const source = sourceOf(input);
  return (await source.list()).map((offered) =>
    tool<Parameters, UnknownContext, string>({
      name: offered.name,
      description: offered.description,
      parameters: offered.inputSchema as unknown as Parameters,
      strict: false,
      execute: async (args: unknown, _context, details) => {
        const result = await source.call(callIdOf(details), offered.name, args, details?.signal);
        const value = modelValue(result);
        return typeof value === "string" ? value : JSON.stringify(value);
      },
    }),
  );
}
