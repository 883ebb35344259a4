import type { ErrorCode } from "../../../src/errors";
import type { JsonValue } from "../../../src/json";
import type { CallResult } from "../../../src/result";
import type { CodeModeConfig } from "../config";
import { guardName, guardProgram } from "./guard";
import { type ChildCall, type MadeCall, ToolHost, type Waiting } from "./host";
import { SANDBOX_MAIN } from "./sandbox";

/** The sandbox isolate's compatibility date: the Worker's own (wrangler.toml). */
const COMPATIBILITY_DATE = "2026-11-01";

/** What a finished run answers: the program's result (JSON), its log and the calls it made, in order. */
export interface CodeRunOutput {
  result: JsonValue | null;
  logs: string[];
  calls: ChildCall[];
}

/**
 * How a run ended: its output, the error its call ends with (the code tool throws it as a tool error),
 * or a call of it that waits for approval (`waiting`; `message` says so, for a run that cannot wait).
 */
export type CodeRunEnd =
  | { ok: true; output: CodeRunOutput }
  | { ok: false; code: ErrorCode; message: string; waiting?: Waiting };

/** What the sandbox's run() answers (worker/code-mode/sandbox.ts). */
type SandboxAnswer =
  | { ok: true; result: string | undefined; logs: string[]; logCut: boolean }
  | { ok: false; error: { name: string; message: string; line?: number }; logs: string[]; logCut: boolean };

interface SandboxEntrypoint {
  run(
    host: object,
    names: string[],
    limits: Pick<CodeModeConfig, "maxLogChars" | "maxResultChars">,
  ): Promise<SandboxAnswer>;
}

/** The Worker Loader binding, as much of it as a run uses (no runtime types: Node loads this module too). */
export interface SandboxLoader {
  load(code: {
    compatibilityDate: string;
    mainModule: string;
    modules: Record<string, string>;
    globalOutbound: null;
    env: Record<string, never>;
    limits: { cpuMs: number };
  }): { getEntrypoint(): unknown };
}

/** What one run needs: the loader, the tools it may call, and how a call of it runs (the pipeline). */
export interface CodeRun {
  loader: SandboxLoader;
  code: string;
  names: readonly string[];
  config: CodeModeConfig;
  runCall: (index: number, name: string, args: unknown) => Promise<CallResult>;
  signal: AbortSignal;
  /** The host as an RpcTarget the sandbox can call (made by the bundle, which imports the runtime). */
  expose: (host: Pick<ToolHost, "call">) => object;
  /** A replay: the calls the earlier run made before it waited for an approval, which this one must repeat. */
  replayed?: readonly (MadeCall | null)[];
}

/** "Failed to start Worker: Uncaught SyntaxError: … at program.js:3:5" → the message and line. */
function startFailure(error: unknown): { message: string; line: number | undefined } {
  const text = error instanceof Error ? error.message : String(error);
  const line = /program\.js:(\d+)/.exec(text);
  const message = /Uncaught (.*)/.exec(text)?.[1] ?? text;
  return { message, line: line ? Number(line[1]) : undefined };
}

function atLine(line: number | undefined): string {
  return line === undefined ? "" : ` (line ${line})`;
}

function logText(logs: readonly string[]): string {
  return logs.length === 0 ? "" : `\nLog:\n${logs.join("\n")}`;
}

function callsText(calls: readonly ChildCall[]): string {
  if (calls.length === 0) return "";
  return `\nCalls: ${calls.map((call) => `${call.tool} ${call.callId} ${call.status}`).join("; ")}`;
}

/**
 * Run a program in a new sandbox isolate (no network, no bindings, CPU-bounded) and answer its output;
 * a program that fails — syntax, a throw, a limit, the wall time, a call waiting for approval — ends
 * the call with a tool error naming the line where it can. Nothing of the run answers after it ended.
 */
export async function runCode(run: CodeRun): Promise<CodeRunEnd> {
  const { config } = run;
  const program = guardProgram(run.code, guardName());
  if (!program.ok) return notStarted(program.message, program.line);
  const host = new ToolHost(new Set(run.names), config, run.runCall, run.replayed);
  const worker = run.loader.load({
    compatibilityDate: COMPATIBILITY_DATE,
    mainModule: "main.js",
    modules: { "main.js": SANDBOX_MAIN, "program.js": program.module },
    globalOutbound: null,
    env: {},
    limits: { cpuMs: config.cpuMs },
  });
  const entrypoint = worker.getEntrypoint() as unknown as SandboxEntrypoint;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), config.timeoutMs);
  });
  const cancelled = new Promise<"cancelled">((resolve) => {
    if (run.signal.aborted) resolve("cancelled");
    else run.signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
  });
  let answer: SandboxAnswer | "timeout" | "cancelled" | "waiting";
  try {
    const program = entrypoint.run(run.expose(host), [...run.names], config);
    answer = await Promise.race([program, timeout, cancelled, host.halted]);
  } catch (error) {
    return crashed(error);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    host.close();
    release(entrypoint);
  }
  if (answer === "timeout") {
    return {
      ok: false,
      code: "timeout",
      message: `The program ran longer than ${config.timeoutMs} ms.${callsText(host.calls)}`,
    };
  }
  if (answer === "cancelled") return { ok: false, code: "cancelled", message: "The run was cancelled." };
  if (answer === "waiting") {
    const message = `${host.stopped!.message}${callsText(host.calls)}`;
    return { ok: false, code: "tool_error", message, waiting: host.waiting! };
  }
  return ended(checked(answer, config), host);
}

/** Drops the stub of the sandbox (RPC stubs are disposable): the isolate need not be kept for it. */
function release(stub: object): void {
  const key = (Symbol as { dispose?: symbol }).dispose;
  const dispose = key === undefined ? undefined : (stub as Record<symbol, unknown>)[key];
  if (typeof dispose === "function") dispose.call(stub);
}

/** The program's answer as the run's end: the host's stop first (a limit, an approval), then the program's. */
function ended(answer: SandboxAnswer, host: ToolHost): CodeRunEnd {
  const { logs, calls } = { logs: answer.logs, calls: host.calls };
  if (host.stopped) {
    const message = `${host.stopped.message}${callsText(calls)}${logText(logs)}`;
    return { ok: false, code: "tool_error", message, ...(host.waiting ? { waiting: host.waiting } : {}) };
  }
  if (!answer.ok) {
    const { name, message, line } = answer.error;
    return {
      ok: false,
      code: "tool_error",
      message: `${name}${atLine(line)}: ${message}${callsText(calls)}${logText(logs)}`,
    };
  }
  const result = answer.result === undefined ? null : (JSON.parse(answer.result) as JsonValue);
  return { ok: true, output: { result, logs, calls } };
}

/** A sandbox failure: the program did not start (a syntax error, with its line) or the isolate crashed. */
function crashed(error: unknown): CodeRunEnd {
  const { message, line } = startFailure(error);
  const text = error instanceof Error ? error.message : String(error);
  if (text.includes("code had hung")) {
    return {
      ok: false,
      code: "tool_error",
      message: "The program never finished: it waits on nothing that can happen.",
    };
  }
  const started = !text.includes("Failed to start Worker");
  if (started) return { ok: false, code: "tool_error", message: `The program's isolate failed: ${message}` };
  return notStarted(message, line);
}

/** A program that could not start: a syntax error, with its line. */
function notStarted(message: string, line: number | undefined): CodeRunEnd {
  return { ok: false, code: "invalid_arguments", message: `The program did not start${atLine(line)}: ${message}` };
}

/**
 * The sandbox's answer, checked again here: the program shares its isolate with the sandbox's code and
 * may have replaced what that code relies on (JSON, Array), so nothing it answers is trusted as is.
 */
function checked(answer: SandboxAnswer, config: CodeModeConfig): SandboxAnswer {
  const logs = Array.isArray(answer?.logs)
    ? answer.logs.filter((line): line is string => typeof line === "string")
    : [];
  const kept: string[] = [];
  let chars = 0;
  for (const line of logs) {
    if (chars + line.length > config.maxLogChars) break;
    chars += line.length;
    kept.push(line);
  }
  const cut = kept.length < logs.length || answer?.logCut === true;
  if (cut) kept.push(`(log cut at ${config.maxLogChars} characters)`);
  const base = { logs: kept, logCut: cut };
  if (answer?.ok === true) {
    const text = answer.result;
    if (text === undefined) return { ok: true, result: undefined, ...base };
    if (typeof text !== "string" || text.length > config.maxResultChars) {
      const message = `the result is over ${config.maxResultChars} characters of JSON`;
      return { ok: false, error: { name: "ResultError", message }, ...base };
    }
    if (!isJson(text)) return { ok: false, error: { name: "ResultError", message: "the result is not JSON" }, ...base };
    return { ok: true, result: text, ...base };
  }
  const error = answer?.ok === false ? answer.error : undefined;
  const line = typeof error?.line === "number" && Number.isInteger(error.line) ? error.line : undefined;
  return {
    ok: false,
    error: {
      name: String(error?.name ?? "Error").slice(0, 100),
      message: String(error?.message ?? "the program failed").slice(0, 2_000),
      ...(line === undefined ? {} : { line }),
    },
    ...base,
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
