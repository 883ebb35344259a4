import * as v from "valibot";
import { defineTool } from "../src";

export default defineTool({
  name: "add",
  description: "Add two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  policy: { readOnly: true, idempotent: true, risk: "low" },
  tags: ["demo", "math"],
  run: ({ a, b }) => ({ sum: a + b }),
});
