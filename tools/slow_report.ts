import * as v from "valibot";
import { defineTool } from "../src";
import { sleep as wait } from "../src/retry";

/** Longest report the demo writes: long enough to outlive a request, short enough for a demo. */
export const MAX_REPORT_SECONDS = 600;

/**
 * A long task, run detached: the call answers at once with its running record, reports progress each
 * second and ends with when it ran. Any surface shows it: GET /v1/calls/:id?wait=, the event stream,
 * the console.
 */
export default defineTool({
  name: "slow_report",
  description:
    "Write a report that takes `seconds` seconds " +
    "(runs detached: the call answers at once as running; its progress and result follow).",
  input: v.object({
    seconds: v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_REPORT_SECONDS),
      v.description("How long the report takes to write"),
    ),
  }),
  output: v.object({ seconds: v.number(), startedAt: v.number(), endedAt: v.number() }),
  policy: { execution: "detached", readOnly: true, idempotent: true, timeoutMs: (MAX_REPORT_SECONDS + 30) * 1000 },
  render: { call: "Report of {seconds} s" },
  tags: ["demo"],
  async run({ seconds }, ctx) {
    const startedAt = Date.now();
    for (let done = 0; done < seconds; done++) {
      ctx.progress({ progress: done, total: seconds, message: `${done} of ${seconds} s written` });
      if (!(await wait(1_000, ctx.signal))) throw ctx.signal.reason;
    }
    ctx.progress({ progress: seconds, total: seconds, message: "done" });
    return { seconds, startedAt, endedAt: Date.now() };
  },
});
