/**
 * Steps (loop turns and function calls) a program may take per ms of its CPU limit: well under what
 * the CPU limit allows (a step is a few ns of a loop's own work), so the guard ends a runaway loop
 * with its line before the runtime ends the isolate.
 */
export const STEPS_PER_CPU_MS = 20_000;

/**
 * The sandbox's main module (JavaScript, run by the Worker Loader in an isolate of its own): it
 * imports the program (program.js: the code with its step guard, guard.ts), hands it `tools` (one
 * async function per tool, each a call to the host over RPC, arguments and results as JSON text) and
 * the guard (which counts loop turns and function calls, and throws past STEPS_PER_CPU_MS per ms of
 * cpuMs), captures console output within a bound, and answers the result as JSON text or the error
 * with its line.
 */
export const SANDBOX_MAIN = `import { WorkerEntrypoint } from "cloudflare:workers";
import program from "program.js";

const show = (value) => {
  if (typeof value === "string") return value;
  try { return JSON.stringify(value) ?? String(value); } catch { return String(value); }
};

const lineOf = (stack) => {
  const match = /program\\.js:(\\d+)/.exec(String(stack));
  return match ? Number(match[1]) : undefined;
};

const describe = (thrown) => {
  try {
    if (thrown instanceof Error) {
      return { name: String(thrown.name), message: String(thrown.message), line: lineOf(thrown.stack) };
    }
    return { name: "Thrown", message: show(thrown) };
  } catch {
    return { name: "Thrown", message: "a value that cannot be shown" };
  }
};

const stepGuard = (budget) => {
  let steps = 0;
  return () => {
    steps += 1;
    if (steps > budget) {
      throw new RangeError("The program ran more than " + budget + " loop turns and function calls.");
    }
  };
};

export default class Sandbox extends WorkerEntrypoint {
  async run(host, names, limits) {
    const guard = stepGuard(limits.cpuMs * ${STEPS_PER_CPU_MS});
    const logs = [];
    let logChars = 0;
    let logCut = false;
    const write = (prefix) => (...parts) => {
      if (logCut) return;
      const line = prefix + parts.map(show).join(" ");
      if (logChars + line.length > limits.maxLogChars) { logCut = true; return; }
      logChars += line.length;
      logs.push(line);
    };
    globalThis.console = Object.freeze({
      log: write(""), info: write(""), debug: write(""), warn: write("warn: "), error: write("error: "),
    });
    const tools = Object.create(null);
    for (const name of names) {
      tools[name] = async (input) => {
        const answer = JSON.parse(await host.call(name, JSON.stringify(input ?? {}) ?? "null"));
        if (answer.ok) return answer.value;
        const error = new Error(answer.message);
        error.name = "ToolCallError";
        error.code = answer.code;
        error.callId = answer.callId;
        throw error;
      };
    }
    Object.freeze(tools);
    try {
      const value = await program(tools, guard);
      let text;
      try {
        text = value === undefined ? undefined : JSON.stringify(value);
      } catch (error) {
        const message = "the result is not JSON: " + describe(error).message;
        return { ok: false, error: { name: "ResultError", message }, logs, logCut };
      }
      if (text !== undefined && text.length > limits.maxResultChars) {
        const message = "the result is " + text.length + " characters of JSON; at most " + limits.maxResultChars;
        return { ok: false, error: { name: "ResultError", message }, logs, logCut };
      }
      return { ok: true, result: text, logs, logCut };
    } catch (thrown) {
      return { ok: false, error: describe(thrown), logs, logCut };
    }
  }
}
`;
