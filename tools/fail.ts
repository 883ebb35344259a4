import * as v from "valibot";
import { defineTool, toolError } from "../src";

export default defineTool({
  name: "fail",
  description: "Always fails with the given message (to see how errors reach the model).",
  input: v.object({
    message: v.pipe(v.string(), v.maxLength(1_000), v.description("The error message the call fails with")),
  }),
  render: { call: "Fail with “{message}”" },
  tags: ["demo", "errors"],
  run: ({ message }) => {
    throw toolError("tool_error", message);
  },
});
