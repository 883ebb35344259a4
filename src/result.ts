import type { ErrorCode, ValidationIssue } from "./errors";
import type { InputRequest } from "./ask";
import type { JsonValue } from "./json";

/**
 * MCP content annotations: who a block is for and how much it matters. Kept with the block through
 * records and toolgate's MCP endpoint; chat formats ignore them.
 */
export interface ContentAnnotations {
  audience?: ("user" | "assistant")[];
  /** 0 (least) to 1 (most important). */
  priority?: number;
  /** ISO 8601. */
  lastModified?: string;
}

type Annotated<T> = T & { annotations?: ContentAnnotations };

/** Rich content a tool may return (the MCP content shapes chat formats can carry). */
export type Content =
  | Annotated<{ type: "text"; text: string }>
  | Annotated<{ type: "image"; data: string; mimeType: string }>
  | Annotated<{ type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string }>
  | Annotated<{ type: "audio"; data: string; mimeType: string }>
  /** An embedded resource (MCP): its text, or its bytes as base64 in blob. */
  | Annotated<{ type: "resource"; resource: EmbeddedResource }>;

export type EmbeddedResource =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** What every successful call is normalised into. */
export interface CallOutput {
  content: Content[];
  /** Structured result (JSON), present when the tool returned a JSON value or declared an output schema. */
  structured?: JsonValue;
  /** Set when the output was cut to fit a budget. */
  truncated?: boolean;
}

export interface CallError {
  code: ErrorCode;
  message: string;
  issues?: ValidationIssue[];
  retryAfterMs?: number;
  status?: number;
  /** input_required: what the tool asked, by the key it asked with (ctx.ask). */
  inputRequests?: Record<string, InputRequest>;
}

/** Terminal statuses plus the two in-flight ones a ledger may hold. */
/** Statuses a call ends in. */
/** input_required: the call ended asking its caller for input (ctx.ask); the caller calls again with the answers. */
export const TERMINAL_STATUSES = [
  "succeeded",
  "failed",
  "rejected",
  "timed_out",
  "cancelled",
  "denied",
  "unknown",
  "input_required",
] as const;
/**
 * Every status a record can have: the terminal ones plus the in-flight ones a ledger may hold:
 * pending (awaiting an approval), running, and awaiting_input (a call run as an MCP task that asked its
 * caller: its questions are in error.inputRequests, and it runs again once they are answered).
 */
export const CALL_STATUSES = [...TERMINAL_STATUSES, "pending", "running", "awaiting_input"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export type PermissionDecision = "allow" | "deny" | "approval";

/** How far a running call has got (ctx.progress): the record keeps the latest. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** The record every call leaves. Arguments, output and error are masked before they get here. */
export interface CallRecord {
  callId: string;
  tenant: string;
  tool: string;
  /** Where the tool's schema came from: "valibot", "json-schema", "mcp:<url>", "openapi", "http". */
  source: string;
  /** Hash of the tool's public definition at call time ("" when the tool is unknown). */
  schemaHash: string;
  /** Masked arguments as received (after JSON parsing), undefined when they could not be parsed. */
  args?: JsonValue;
  validation: { ok: boolean; issues?: ValidationIssue[] };
  permission?: PermissionDecision;
  attempts: number;
  startedAt: number;
  durationMs: number;
  status: CallStatus;
  output?: CallOutput;
  error?: CallError;
  /** True when this outcome was replayed from an earlier call with the same id. */
  replay?: boolean;
  /** The latest progress the tool reported while it ran (kept by the journal, e.g. the ledger). */
  progress?: Progress;
  /** The W3C traceparent of the call's span, when it was traced (a tenant with `telemetry`). */
  trace?: string;
  /**
   * The concurrency gate the call asked a slot of (`tool:<name>` or `group:<name>`, without its key),
   * and how long it waited for it (so far, if it is still waiting).
   */
  gate?: { name: string; waitedMs: number };
  /** The call that made this one: a code run (docs/code-mode.md) whose program called this tool. */
  parent?: string;
  /**
   * Where the run's time went, for a call retried or one that made upstream requests (ctx.fetch): each
   * such attempt, in ms from startedAt. A single attempt without upstream requests has none.
   */
  steps?: CallStep[];
}

/** One attempt of a call (CallRecord.steps): when it ran, how it ended, and its upstream requests' span. */
export interface CallStep {
  attempt: number;
  /** From the call's startedAt. */
  startMs: number;
  durationMs: number;
  /** The attempt's error code, when it failed. */
  error?: ErrorCode;
  /** From the first upstream request to the last one's response headers (or failure), and how many. */
  upstream?: { startMs: number; durationMs: number; requests: number };
}

export type CallResult =
  | { ok: true; callId: string; tool: string; output: CallOutput; record: CallRecord }
  | { ok: false; callId: string; tool: string; error: CallError; record: CallRecord };

/** Map an error code to the record status it ends in. */
export function statusForError(code: ErrorCode): CallStatus {
  switch (code) {
    case "unknown_tool":
    case "invalid_json":
    case "invalid_arguments":
    case "conflict":
    case "tool_definition_changed":
      return "rejected";
    case "denied":
      return "denied";
    case "approval_required":
      return "pending";
    case "running":
      return "running";
    case "timeout":
      return "timed_out";
    case "cancelled":
      return "cancelled";
    case "input_required":
      return "input_required";
    default:
      return "failed";
  }
}

/** A call's record (read back from a ledger or the API) as the result the pipeline would have given. */
export function resultOfRecord(record: CallRecord): CallResult {
  const base = { callId: record.callId, tool: record.tool, record };
  if (record.status === "succeeded" && record.output) return { ok: true, ...base, output: record.output };
  return {
    ok: false,
    ...base,
    error: record.error ?? { code: "internal", message: `The call ended ${record.status}.` },
  };
}

/** Not a failure but not an outcome yet either: the call runs on, detached from this request. */
export function isRunning(result: CallResult): boolean {
  return !result.ok && result.error.code === "running";
}

/** Plain text of a result, the form chat formats that only carry strings send back to the model. */
export function resultText(result: CallResult): string {
  // A call that goes on elsewhere has not failed: the model reads where its outcome will be.
  if (!result.ok)
    return result.error.code === "running"
      ? result.error.message
      : `Error [${result.error.code}]: ${result.error.message}`;
  const content = result.output.content;
  if (content.length === 1) return contentText(content[0]!);
  const texts = content.map(contentText);
  if (texts.length === 0 && result.output.structured !== undefined) return JSON.stringify(result.output.structured);
  return texts.join("\n");
}

/** One content item as text, for APIs (and budgets) that carry only text. */
export function contentText(item: Content): string {
  switch (item.type) {
    case "text":
      return item.text;
    case "resource_link":
      return `[resource: ${item.name}] ${item.uri}`;
    case "resource":
      return "text" in item.resource ? item.resource.text : `[resource: ${item.resource.uri}]`;
    default:
      return `[${item.type}: ${item.mimeType}]`;
  }
}
