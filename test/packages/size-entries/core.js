// The core's share measured by size.test.ts: a tool, one format and the pipeline, as a browser app uses them.
import { createRegistry, defineTool, executeCall, openaiFormat } from "toolgate";
import * as v from "valibot";

const add = defineTool({
  name: "add",
  description: "Add two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});
const registry = createRegistry([add]);
const decoded = openaiFormat.decode([{ id: "c1", type: "function", function: { name: "add", arguments: "{}" } }]);
if (decoded.ok) console.log(openaiFormat.encode([await executeCall(decoded.calls[0], { registry })]));
