import type { FormatName } from "../../../src/formats/index";

/** One call to `add` as each chat API would hand it over. */
export function sameCallBodies(args: Record<string, unknown>, id = "call_1"): Record<FormatName, unknown> {
  return {
    openai: [{ id, type: "function", function: { name: "add", arguments: JSON.stringify(args) } }],
    "openai-responses": [
      { type: "function_call", id: "fc_1", call_id: id, name: "add", arguments: JSON.stringify(args) },
    ],
    anthropic: [{ type: "tool_use", id, name: "add", input: args, caller: { type: "direct" } }],
    gemini: [{ functionCall: { id, name: "add", args } }],
    mcp: { name: "add", arguments: args },
  };
}
