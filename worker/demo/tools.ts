import * as v from "valibot";
import { defineTool } from "../../src/tool";
import { toolError } from "../../src/errors";
import { sleep as wait } from "../../src/retry";

/** Longest sleep a demo tool accepts, so a demo call can never hold a slot for long. */
export const MAX_SLEEP_MS = 30_000;

/** A sleep's own arguments and report: what it was asked, and when the sleep itself ran. */
export const SLEEP_MS = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_SLEEP_MS));
export const SLEEP_REPORT = v.object({ ms: v.number(), startedAt: v.number(), endedAt: v.number() });

/** Waits ms (or until the call is cancelled, then throws its reason) and reports when it ran. */
export async function timedSleep(ms: number, signal: AbortSignal): Promise<v.InferOutput<typeof SLEEP_REPORT>> {
  const startedAt = Date.now();
  if (!(await wait(ms, signal))) throw signal.reason;
  return { ms, startedAt, endedAt: Date.now() };
}

/** A tool that waits ms (or until the call is cancelled) and reports when the sleep itself ran. */
function sleepTool(name: string, description: string, limit: number) {
  return defineTool({
    name,
    description,
    input: v.object({ ms: SLEEP_MS }),
    output: SLEEP_REPORT,
    policy: { concurrency: { limit }, timeoutMs: MAX_SLEEP_MS + 5_000, idempotent: true },
    run: ({ ms }, ctx) => timedSleep(ms, ctx.signal),
  });
}

export const add = defineTool({
  name: "add",
  description: "Add two numbers.",
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  policy: { readOnly: true, idempotent: true, risk: "low" },
  run: ({ a, b }) => ({ sum: a + b }),
});

export const echo = defineTool({
  name: "echo",
  description: "Return the text unchanged.",
  input: v.object({ text: v.pipe(v.string(), v.maxLength(10_000)) }),
  policy: { readOnly: true, idempotent: true },
  run: ({ text }) => text,
});

export const sleep = sleepTool("sleep", "Sleep for ms milliseconds. Sequential: one sleep at a time across the tenant.", 1);
export const sleepPool = sleepTool("sleep_pool", "Sleep for ms milliseconds. At most three sleeps run at once across the tenant.", 3);

export const sendMessage = defineTool({
  name: "send_message",
  description: "Send a message to someone (pretend). High risk: every call waits for an admin's approval.",
  input: v.object({ to: v.pipe(v.string(), v.minLength(1), v.maxLength(200)), text: v.pipe(v.string(), v.maxLength(10_000)) }),
  output: v.object({ delivered: v.boolean(), to: v.string(), messageId: v.string() }),
  policy: { risk: "high", idempotent: false, approval: "always" },
  run: ({ to }, ctx) => ({ delivered: true, to, messageId: `msg_${ctx.callId}` }),
});

/** Longest report the demo writes: long enough to outlive a request, short enough for a demo. */
export const MAX_REPORT_SECONDS = 600;

/**
 * A long task, run detached: the call answers at once with its running record, reports progress each
 * second and ends with when it ran. Any surface shows it: GET /v1/calls/:id?wait=, the event stream,
 * the console.
 */
export const slowReport = defineTool({
  name: "slow_report",
  description: "Write a report that takes `seconds` seconds (runs detached: the call answers at once as running; its progress and result follow).",
  input: v.object({ seconds: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_REPORT_SECONDS)) }),
  output: v.object({ seconds: v.number(), startedAt: v.number(), endedAt: v.number() }),
  policy: { execution: "detached", readOnly: true, idempotent: true, timeoutMs: (MAX_REPORT_SECONDS + 30) * 1000 },
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

export const fail = defineTool({
  name: "fail",
  description: "Always fails with the given message (to see how errors reach the model).",
  input: v.object({ message: v.pipe(v.string(), v.maxLength(1_000)) }),
  run: ({ message }) => {
    throw toolError("tool_error", message);
  },
});

export const flaky = defineTool({
  name: "flaky",
  description: "Fails with a retryable upstream error on the first `failures` attempts, then succeeds.",
  input: v.object({ failures: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(5)) }),
  output: v.object({ attempt: v.number() }),
  policy: { idempotent: true, retry: { attempts: 3, baseMs: 1, capMs: 5, jitter: false } },
  run: ({ failures }, ctx) => {
    if (ctx.attempt <= failures) throw toolError("upstream_error", `flaky failure on attempt ${ctx.attempt}`);
    return { attempt: ctx.attempt };
  },
});

export const DEMO_TOOLS = [add, echo, sleep, sleepPool, sendMessage, slowReport, fail, flaky] as const;
