import type { Reporter, TestRunEndReason } from "vitest/node";

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

/** @cloudflare/vitest-plugin prints workerd's own log (runtime warnings, exceptions) from this function. */
const WORKERD_LOG_HANDLER = "handleStructuredLogs";

/**
 * Lines that are a bug wherever they come from: one request using another request's I/O (a promise,
 * stream or stub made in one request, settled or used from another). The request that trips it may
 * still answer right, so no test need fail; the run does.
 */
const DEFECTS = [
  /Cannot perform I\/O on behalf of a different request/,
  /resolved or rejected from a different request context/,
];

/**
 * Holds back the lines workerd itself logs during the Worker tests (expected ones: a fault test's
 * refused connection, a fuzzed body read as text) and prints them only when a run does not pass.
 * The plugin writes them straight to stdout/stderr with no option to redirect them, so this
 * recognises the writes made from its log handler and keeps them until the run ends. A held line
 * naming a defect (DEFECTS) fails the run.
 *
 * Expected lines: a refused connection shows as `Uncaught (in promise) ... Network connection lost`
 * even though the fetch's rejection is handled (workerd logs a rejection where it crosses from
 * JavaScript into the runtime, then passes it on); an unhandled rejection in the Worker's code fails
 * the run through vitest instead, as an "Unhandled Rejection" error.
 */
export class HeldWorkerdLogs implements Reporter {
  private held: string[] = [];

  onInit(): void {
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream) as Write;
      const hold: Write = (chunk, ...rest) => {
        if (typeof chunk === "string" && new Error().stack?.includes(WORKERD_LOG_HANDLER)) {
          this.held.push(chunk);
          return true;
        }
        return write(chunk, ...rest);
      };
      stream.write = hold as typeof stream.write;
    }
  }

  onTestRunStart(): void {
    this.held = [];
  }

  onTestRunEnd(_modules: unknown, _errors: unknown, reason: TestRunEndReason): void {
    const defects = this.held.filter((entry) => DEFECTS.some((pattern) => pattern.test(entry)));
    if (defects.length > 0) {
      process.exitCode = 1;
      process.stderr.write(
        `\nworkerd logged ${defects.length} line(s) that are a bug in any run, so the run fails:\n` +
          `${defects.join("")}\n`,
      );
    }
    if ((reason === "passed" && defects.length === 0) || this.held.length === 0) return;
    // Fuzzing repeats the same warning dozens of times: one line each, with its count.
    const counts = new Map<string, number>();
    for (const entry of this.held) counts.set(entry, (counts.get(entry) ?? 0) + 1);
    const lines = [...counts].map(([entry, n]) => (n > 1 ? `(${n}×) ${entry}` : entry));
    process.stderr.write(`\nworkerd's own log during this run, shown because the run failed:\n${lines.join("")}\n`);
  }
}
