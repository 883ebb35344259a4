import { isToolError, toolError, type ToolError } from "../errors";
import type { Masker } from "../mask";

/**
 * A connection refused, reset or cut mid-body is the upstream's failure, not the tool's: an
 * upstream_error, retryable (the pipeline retries it when the tool is idempotent). Aborts and
 * ToolErrors pass unchanged.
 */
export function networkFailure(error: unknown, signal: AbortSignal, mask: Masker, what: string): unknown {
  if (signal.aborted || isToolError(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return toolError("upstream_error", `${what}: ${mask.text(reason)}`, {
    retryable: true,
    cause: error,
  }) satisfies ToolError;
}
