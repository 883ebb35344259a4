import * as v from "valibot";
import { intIn } from "../tenant/int-in";
import { toolName } from "../tenant/tool-name";
import { CODE_MODES } from "./modes";

/**
 * Code mode (docs/code-mode.md): a tool whose input is a program calling the tenant's tools, run in a
 * sandbox isolate; each call it makes goes through the pipeline as a call of its own.
 */
export const CodeModeConfigSchema = v.strictObject({
  /** The mode of callers whose key or endpoint sets none. */
  default: v.optional(v.picklist(CODE_MODES, 'must be "on", "off" or "only"'), "on"),
  /** The code tool's name. */
  tool: v.optional(toolName, "run_code"),
  /** Wall time of a run, ms (tool calls included). */
  timeoutMs: v.optional(intIn(100, 120_000), 30_000),
  /** CPU time of the program, ms (enforced by the Workers runtime; not by local workerd). */
  cpuMs: v.optional(intIn(10, 30_000), 1_000),
  /** Tool calls a run may make. */
  maxCalls: v.optional(intIn(1, 1_000), 50),
  /** Largest result, in characters of its JSON. */
  maxResultChars: v.optional(intIn(100, 1_000_000), 100_000),
  /** Largest log (console output), in characters; later lines are dropped. */
  maxLogChars: v.optional(intIn(0, 100_000), 4_000),
});

export type CodeModeConfig = v.InferOutput<typeof CodeModeConfigSchema>;
