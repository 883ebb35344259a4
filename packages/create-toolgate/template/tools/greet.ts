import { defineTool } from "toolgate";
import * as v from "valibot";

export default defineTool({
  name: "greet",
  description: "Greet someone by name.",
  input: v.object({ name: v.pipe(v.string(), v.minLength(1), v.maxLength(100)) }),
  output: v.object({ greeting: v.string() }),
  policy: { timeoutMs: 5_000 },
  run: ({ name }) => ({ greeting: `Hello, ${name}!` }),
});
