/**
 * Error codes a call can end with. Every failure in the pipeline becomes one of these inside a
 * result; nothing is thrown out of executeCall.
 */
export const ERROR_CODES = [
  "unknown_tool",
  "invalid_json",
  "invalid_arguments",
  "denied",
  "approval_required",
  "running",
  "timeout",
  "cancelled",
  "busy",
  "upstream_error",
  "tool_error",
  "conflict",
  "internal",
  "tool_definition_changed",
  /** The tool asked its caller for input (ctx.ask) that the call did not carry yet. */
  "input_required",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** One validation problem: where (dot/bracket path, "" for the root) and what. */
export interface ValidationIssue {
  path: string;
  message: string;
}

export interface ToolErrorOptions {
  /** May the pipeline try again? Defaults depend on the code (see isRetryableCode). */
  retryable?: boolean;
  /** A hint from the upstream (Retry-After) or a gate: wait this long before trying again. */
  retryAfterMs?: number;
  /** HTTP status of an upstream failure, when there was one. */
  status?: number;
  issues?: ValidationIssue[];
  cause?: unknown;
}

/** The error shape tools throw and results carry. A plain Error plus a brand, so no instanceof is needed. */
export interface ToolError extends Error {
  readonly toolgateError: true;
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly status?: number;
  readonly issues?: ValidationIssue[];
}

const RETRYABLE_BY_DEFAULT: ReadonlySet<ErrorCode> = new Set(["timeout", "busy", "upstream_error"]);

export function isRetryableCode(code: ErrorCode): boolean {
  return RETRYABLE_BY_DEFAULT.has(code);
}

/** Make an error a tool may throw to end its call with a specific code and message. */
export function toolError(code: ErrorCode, message: string, options: ToolErrorOptions = {}): ToolError {
  const error = new Error(message, options.cause === undefined ? undefined : { cause: options.cause }) as Error & {
    -readonly [K in keyof ToolError]: ToolError[K];
  };
  error.name = "ToolError";
  error.toolgateError = true;
  error.code = code;
  error.retryable = options.retryable ?? isRetryableCode(code);
  if (options.retryAfterMs !== undefined) error.retryAfterMs = options.retryAfterMs;
  if (options.status !== undefined) error.status = options.status;
  if (options.issues !== undefined) error.issues = options.issues;
  return error;
}

/** Structural guard: works across realms and bundles, unlike instanceof. */
export function isToolError(value: unknown): value is ToolError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { toolgateError?: unknown }).toolgateError === true &&
    typeof (value as { code?: unknown }).code === "string"
  );
}
