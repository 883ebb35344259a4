import * as v from "valibot";
import { defineTool, toolError } from "../src";

export default defineTool({
  name: "flaky",
  description: "Fails with a retryable upstream error on the first `failures` attempts, then succeeds.",
  input: v.object({
    failures: v.pipe(
      v.number(),
      v.integer(),
      v.minValue(0),
      v.maxValue(5),
      v.description("How many attempts fail before one succeeds (3 attempts at most)"),
    ),
  }),
  output: v.object({ attempt: v.number() }),
  policy: { idempotent: true, retry: { attempts: 3, baseMs: 1, capMs: 5, jitter: false } },
  render: { call: "Fail {failures} times, then succeed" },
  tags: ["demo", "errors"],
  run: ({ failures }, ctx) => {
    if (ctx.attempt <= failures) throw toolError("upstream_error", `flaky failure on attempt ${ctx.attempt}`);
    return { attempt: ctx.attempt };
  },
});
