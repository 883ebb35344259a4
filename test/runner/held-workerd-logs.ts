import type { Reporter, TestRunEndReason } from "vitest/node";

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

/** @cloudflare/vitest-plugin prints workerd's own log (runtime warnings, exceptions) from this function. */
const WORKERD_LOG_HANDLER = "handleStructuredLogs";

/**
 * Holds back the lines workerd itself logs during the Worker tests (expected ones: a fault test's
 * refused connection, a fuzzed body read as text) and prints them only when a run does not pass.
 * The plugin writes them straight to stdout/stderr with no option to redirect them, so this
 * recognises the writes made from its log handler and keeps them until the run ends.
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
    if (reason === "passed" || this.held.length === 0) return;
    // Fuzzing repeats the same warning dozens of times: one line each, with its count.
    const counts = new Map<string, number>();
    for (const entry of this.held) counts.set(entry, (counts.get(entry) ?? 0) + 1);
    const lines = [...counts].map(([entry, n]) => (n > 1 ? `(${n}×) ${entry}` : entry));
    process.stderr.write(`\nworkerd's own log during this run, shown because the run did not pass:\n${lines.join("")}\n`);
  }
}
