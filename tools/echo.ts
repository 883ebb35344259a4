import * as v from "valibot";
import { defineTool } from "../src";

export default defineTool({
  name: "echo",
  description: "Return the text unchanged.",
  input: v.object({ text: v.pipe(v.string(), v.maxLength(10_000), v.description("The text to return")) }),
  policy: { readOnly: true, idempotent: true },
  render: { call: "Echo “{text}”", result: "text" },
  tags: ["demo"],
  run: ({ text }) => text,
});
