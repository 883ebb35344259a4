import * as v from "valibot";
import { defineTool } from "../src";

export default defineTool({
  name: "add",
  description: "Add two numbers.",
  input: v.object({
    a: v.pipe(v.number(), v.description("The first number")),
    b: v.pipe(v.number(), v.description("The number to add to it")),
  }),
  output: v.object({ sum: v.number() }),
  policy: { readOnly: true, idempotent: true, risk: "low" },
  render: { call: "Add {a} and {b}" },
  tags: ["demo", "math"],
  run: ({ a, b }) => ({ sum: a + b }),
});
