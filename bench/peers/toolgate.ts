/** toolgate's core: openai.decode → executeCall / executeBatch → openai.encode, as bench/core.ts. */
import * as v from "valibot";
import { createRegistry, defineTool, executeBatch, executeCall, type ExecuteOptions } from "../../src/index";
import { openai } from "../../src/formats/openai";
import { addFn, type AssistantMessage, type Peer } from "./workload";

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  input: v.object({ a: v.number(), b: v.number() }),
  run: addFn,
});
const options: ExecuteOptions = { registry: createRegistry([add]) };

async function run(message: AssistantMessage): Promise<string> {
  const decoded = openai.decode(message);
  if (!decoded.ok) throw new Error(decoded.message);
  // One call goes through executeCall, as an app answering one tool call would; more through the batch.
  const results =
    decoded.calls.length === 1
      ? [await executeCall(decoded.calls[0]!, options)]
      : await executeBatch(decoded.calls, options);
  return JSON.stringify(openai.encode(results).messages);
}

export const toolgate: Peer = {
  name: "toolgate",
  path: "openai.decode → executeCall/executeBatch (valibot) → openai.encode",
  setup: async () => ({ run }),
};
