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

/** Why the host stopped a run before the program finished (a limit, a call waiting for approval, a replay's change). */
export interface Stop {
  code: "approval_required" | "limit" | "replay";
  message: string;
}

/** A call a run made, as a replay of the run checks it: its tool and the SHA-256 of its arguments' JSON text. */
export interface MadeCall {
  tool: string;
  args: string;
}

/**
 * A run stopped at a call that waits for approval: that call, and every call made so far by index
 * (null: still under way when it stopped). Its replay must make the same calls in the same order.
 */
export interface Waiting {
  child: string;
  tool: string;
  made: (MadeCall | null)[];
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
  /** Set when a call waits for approval: the run stops there (`halted` settles) to wait for it. */
  waiting: Waiting | undefined;
  /** Settles once the run waits for an approval: the program is not awaited further. */
  readonly halted: Promise<"waiting">;
  #halt!: () => void;
  #open = true;
  readonly #made: (MadeCall | null)[] = [];
  readonly #names: ReadonlySet<string>;
  readonly #config: CodeModeConfig;
  readonly #run: (index: number, name: string, args: unknown) => Promise<CallResult>;
  readonly #replayed: readonly (MadeCall | null)[];

  /** `replayed`: the calls an earlier run of this program made before it waited (this run must repeat them). */
  constructor(
    names: ReadonlySet<string>,
    config: CodeModeConfig,
    run: (index: number, name: string, args: unknown) => Promise<CallResult>,
    replayed: readonly (MadeCall | null)[] = [],
  ) {
    this.#names = names;
    this.#config = config;
    this.#run = run;
    this.#replayed = replayed;
    this.halted = new Promise((resolve) => {
      this.#halt = () => resolve("waiting");
    });
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
    this.#made.push(null);
    const made: MadeCall = { tool: name, args: await sha256(argsText) };
    const changed = this.#changed(index, made);
    if (changed) {
      this.stopped = { code: "replay", message: changed };
      Object.assign(child, { callId: "(not made)", status: "rejected" });
      return { ok: false, code: "conflict", message: changed };
    }
    this.#made[index] = made;
    const result = await this.#run(index, name, JSON.parse(argsText));
    child.callId = result.callId;
    child.status = result.record.status;
    if (result.ok) return { ok: true, value: programValue(result.output) };
    if (result.error.code === "approval_required" && !this.stopped) {
      this.stopped = {
        code: "approval_required",
        message: `The call ${result.callId} (${name}) waits for approval; the run ended there.`,
      };
      this.waiting = { child: result.callId, tool: name, made: [...this.#made] };
      this.#halt();
    }
    return { ok: false, code: result.error.code, message: result.error.message, callId: result.callId };
  }

  /** Why the call at `index` is not the one the earlier run made there (a replay must repeat them), if it is not. */
  #changed(index: number, made: MadeCall): string | undefined {
    const earlier = this.#replayed[index];
    if (!earlier || (earlier.tool === made.tool && earlier.args === made.args)) return undefined;
    const what = earlier.tool === made.tool ? `${made.tool} with other arguments` : `${made.tool}, not ${earlier.tool}`;
    return (
      `The program is not deterministic: run again after an approval, its call ${index + 1} was ${what}. ` +
      "A run that waits for an approval runs again from the start, and its calls before the approved one " +
      "must not depend on time, chance or anything but their results."
    );
  }
}

/** The SHA-256 of a text, in hex. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
