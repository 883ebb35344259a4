import type { CallOutput, CallResult } from "../../../src/result";
import type { CodeModeConfig } from "../config";

/** One call a program made, in order: what the run's record lists. */
export interface ChildCall {
  callId: string;
  tool: string;
  status: CallResult["record"]["status"];
}

/** What the sandbox answers for one tool call: the tool's value, or its error (JSON text over RPC). */
type CallAnswer = { ok: true; value: unknown } | { ok: false; code: string; message: string; callId?: string };

/** Why the host stopped a run before the program finished (the limit it crossed, a call waiting for approval). */
export interface Stop {
  code: "approval_required" | "limit";
  message: string;
}

/** Arguments of one tool call, as JSON text, at most this long (the pipeline's own limits apply after). */
const MAX_ARGUMENT_CHARS = 1024 * 1024;

/** The value a program gets for a tool's output: its structured result, else its text. */
export function programValue(output: CallOutput): unknown {
  if (output.structured !== undefined) return output.structured;
  return output.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("\n");
}

/**
 * The program's way back to the host (passed to the sandbox over RPC, in the RpcTarget the Worker's
 * bundle makes of it: this module imports nothing of the runtime, so Node can load it to build
 * descriptions): each tool call it makes runs
 * through `run` (the pipeline, as a call of its own). Answers JSON text and never throws: a tool the
 * program may not use, bad arguments, a limit crossed or a run already over is an error answer.
 */
export class ToolHost {
  readonly calls: ChildCall[] = [];
  stopped: Stop | undefined;
  #open = true;
  readonly #names: ReadonlySet<string>;
  readonly #config: CodeModeConfig;
  readonly #run: (index: number, name: string, args: unknown) => Promise<CallResult>;

  constructor(
    names: ReadonlySet<string>,
    config: CodeModeConfig,
    run: (index: number, name: string, args: unknown) => Promise<CallResult>,
  ) {
    this.#names = names;
    this.#config = config;
    this.#run = run;
  }

  /** No call is answered after this: a program still running after its run ended reaches nothing. */
  close(): void {
    this.#open = false;
  }

  async call(name: unknown, argsText: unknown): Promise<string> {
    return JSON.stringify(await this.#answer(name, argsText));
  }

  async #answer(name: unknown, argsText: unknown): Promise<CallAnswer> {
    if (!this.#open || this.stopped) return { ok: false, code: "cancelled", message: "The run is over." };
    if (typeof name !== "string" || !this.#names.has(name)) {
      return { ok: false, code: "denied", message: `${JSON.stringify(name)} is not a tool this program may call.` };
    }
    if (typeof argsText !== "string" || argsText.length > MAX_ARGUMENT_CHARS) {
      return {
        ok: false,
        code: "invalid_arguments",
        message: `Arguments must be JSON of at most ${MAX_ARGUMENT_CHARS} characters.`,
      };
    }
    if (this.calls.length >= this.#config.maxCalls) {
      this.stopped = { code: "limit", message: `The program made more than ${this.#config.maxCalls} tool calls.` };
      return { ok: false, code: "busy", message: this.stopped.message };
    }
    const index = this.calls.length;
    const child: ChildCall = { callId: "", tool: name, status: "running" };
    this.calls.push(child);
    const result = await this.#run(index, name, JSON.parse(argsText));
    child.callId = result.callId;
    child.status = result.record.status;
    if (result.ok) return { ok: true, value: programValue(result.output) };
    if (result.error.code === "approval_required") {
      this.stopped = {
        code: "approval_required",
        message: `The call ${result.callId} (${name}) waits for approval; the run ended there.`,
      };
    }
    return { ok: false, code: result.error.code, message: result.error.message, callId: result.callId };
  }
}
