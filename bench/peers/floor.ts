/**
 * The floor: what any runtime must do at least, per call — JSON.parse of the arguments, valibot
 * safeParse, the function, JSON.stringify of the tool message. No lookup, no error handling beyond
 * the schema's first issue, no hooks: a lower bound, not a runtime.
 */
import * as v from "valibot";
import { addFn, type AssistantMessage, type Peer } from "./workload";

const AddInput = v.object({ a: v.number(), b: v.number() });

function one(id: string, args: string): string {
  const parsed = v.safeParse(AddInput, JSON.parse(args));
  const content = parsed.success ? JSON.stringify(addFn(parsed.output)) : `Error: ${parsed.issues[0]!.message}`;
  return JSON.stringify({ role: "tool", tool_call_id: id, content });
}

export const floor: Peer = {
  name: "floor",
  path: "JSON.parse + valibot safeParse + add + JSON.stringify",
  setup: async () => ({
    run: (message: AssistantMessage) => `[${message.tool_calls.map((c) => one(c.id, c.function.arguments)).join(",")}]`,
  }),
};
