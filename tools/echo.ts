import * as v from "valibot";
import { defineTool } from "../src";

export default defineTool({
  name: "echo",
  description: "Return the text unchanged.",
  input: v.object({ text: v.pipe(v.string(), v.maxLength(10_000)) }),
  policy: { readOnly: true, idempotent: true },
  tags: ["demo"],
  run: ({ text }) => text,
});
