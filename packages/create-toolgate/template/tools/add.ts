import { defineTool } from "toolgate";
import * as v from "valibot";

export default defineTool({
  name: "add",
  description: "Add two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  policy: { readOnly: true, idempotent: true },
  run: ({ a, b }) => ({ sum: a + b }),
});
