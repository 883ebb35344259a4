// tools/add.ts in a checkout (the path differs here only so the comparison typechecks in place).
import * as v from "valibot";
import { defineTool } from "../../../../src";

export default defineTool({
  name: "add",
  description: "Add two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});
