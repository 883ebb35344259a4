import { spawn } from "node:child_process";
import { expectationsOf, unmet, type Expectation } from "./expectation";
import type { FencedBlock } from "./markdown";

/** Where the docs' examples reach the demo tenant (`npm run dev`); the test substitutes its own server. */
export const DEMO_HOST = "127.0.0.1:8787";

const SHELLS = new Set(["sh", "bash", "shell"]);
const STEP = "@@docs-example-step@@";
const STATUS = /@@curl-status (\d{3})@@/g;

/** Whether a block calls the demo: its address outside `#` comments (a comment may name it without calling it). */
export function callsDemo(body: string): boolean {
  return body.split("\n").some((line) => line.replace(/(^|\s)#.*$/, "").includes(DEMO_HOST));
}

/**
 * The shell examples of the docs, sorted: those that call the demo (they run), those marked
 * ` ```sh no-test ` (they cannot run locally: a deploy, a secret, a remote tenant), and any other
 * shell block, which is an error (an example nobody runs could rot unseen).
 */
export function classifyShellBlocks(blocks: FencedBlock[]): {
  run: FencedBlock[];
  noTest: FencedBlock[];
  unmarked: FencedBlock[];
} {
  const shell = blocks.filter((block) => SHELLS.has(block.lang));
  const marked = (block: FencedBlock) => block.flags.includes("no-test");
  return {
    run: shell.filter((block) => !marked(block) && callsDemo(block.body)),
    noTest: shell.filter(marked),
    unmarked: shell.filter((block) => !marked(block) && !callsDemo(block.body)),
  };
}

/**
 * The script the test runs for an example: strict bash, the demo's address replaced by `host`, a
 * marker printed on both streams where each `# →` expectation stands (so each step's output is told
 * apart), and `curl` reporting every answer's status on stderr (so a 4xx the example did not expect
 * fails it, though `curl -s` exits 0 on one).
 */
export function scriptOf(body: string, host: string): { script: string; expectations: Expectation[] } {
  const local = body.replaceAll(DEMO_HOST, host); // in the expectations too: answers name the server's origin
  const found = expectationsOf(local);
  const lines = local.split("\n");
  for (const { index } of [...found].reverse())
    lines.splice(index, 0, `printf '\\n${STEP}\\n'; printf '${STEP}\\n' >&2`);
  const script = [
    "set -euo pipefail",
    `curl() { command curl --write-out '%{stderr}@@curl-status %{response_code}@@\\n' "$@"; }`,
    ...lines,
  ].join("\n");
  return { script, expectations: found.map(({ expectation }) => expectation) };
}

/** One step of a run: what its commands printed, the statuses its curls got, what it should print. */
export interface Step {
  output: string;
  statuses: number[];
  expectation?: Expectation;
}

/**
 * Runs an example against `host` with bash, in a process group of its own: the whole group is killed
 * once bash ends (nothing an example leaves in the background outlives it) or after `timeoutMs` (a
 * bound for hangs only).
 */
export function runExample(
  body: string,
  host: string,
  timeoutMs: number,
): Promise<{ code: number; stderr: string; steps: Step[] }> {
  const { script, expectations } = scriptOf(body, host);
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // the group has already gone
      }
    };
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      killGroup();
    }, timeoutMs);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("exit", killGroup); // what bash left behind would hold its pipes open
    child.on("close", (exitCode) => {
      clearTimeout(timer);
      // The last part is what came after the last marker printed: expectations from there on were not reached.
      const outputs = stdout.split(`\n${STEP}\n`);
      const errors = stderr.split(`${STEP}\n`);
      const steps = outputs.map((output, i) => ({
        output,
        statuses: [...(errors[i] ?? "").matchAll(STATUS)].map((match) => Number(match[1])),
        ...(expectations[i] && i < outputs.length - 1 ? { expectation: expectations[i] } : {}),
      }));
      const note = killed ? `(killed: still running after ${timeoutMs} ms)\n` : "";
      resolve({ code: exitCode ?? -1, stderr: note + stderr.replace(STATUS, "").replaceAll(STEP, ""), steps });
    });
  });
}

/**
 * What went wrong in a run: a non-zero exit, an unexpected HTTP status, an output unlike its
 * expectation. Lines are the file's when `fenceLine` is the block's opening fence.
 */
export function problemsOf(
  run: { code: number; stderr: string; steps: Step[] },
  expectationCount: number,
  fenceLine = 0,
): string[] {
  const problems: string[] = [];
  if (run.code !== 0) problems.push(`bash exited ${run.code}: ${run.stderr.trim().slice(-500)}`);
  for (const [i, step] of run.steps.entries()) {
    const expected = step.expectation?.status;
    const others = expected === undefined ? step.statuses : step.statuses.slice(0, -1);
    const failed = others.filter((status) => status >= 400);
    const line = step.expectation && fenceLine + step.expectation.line;
    const where = step.expectation ? `before the expectation of line ${line}` : `step ${i + 1}`;
    if (failed.length > 0)
      problems.push(`${where}: a curl got ${failed.join(", ")} (write "# → <status> …" where an error is the point)`);
    const reason = step.expectation && unmet(step.expectation, step.output, step.statuses);
    if (reason)
      problems.push(
        `line ${line}: ${reason}\n  expected: ${step.expectation!.text}\n` +
          `  output: ${step.output.trim().slice(0, 1500)}`,
      );
  }
  if (run.code === 0 && run.steps.length < expectationCount + 1) problems.push("not every expectation was reached");
  // A failed command ends the run: the problems above are of the steps before it.
  return problems;
}
