import type { JsonSchema, JsonValue } from "../json";
import type { Format } from "../formats/format";
import type { FORMATS, FormatName } from "../formats/index";
import type { GateRules } from "../gates/rules";
import type { Risk } from "../policy";
import type { CallRecord, CallStatus } from "../result";
import type { ToolRender } from "../tool-render";
import type { CallSurface } from "./surface";

export type { CallSurface } from "./surface";

/** The shapes of the HTTP API as the typed client sees them (see worker/routes/*). */

type FormatModules = typeof FORMATS;

/** A tool as format F declares it (OpenAI function tool, Anthropic tool, …). */
export type DefinitionOf<F extends FormatName> = FormatModules[F] extends Format<infer D, unknown> ? D : never;
/** What the app appends to its conversation in format F. */
export type AnswerOf<F extends FormatName> = FormatModules[F] extends Format<unknown, infer A> ? A : never;

export interface ToolListing<F extends FormatName> {
  tools: DefinitionOf<F>[];
  /** Tools the format cannot express, with the reason. */
  skipped?: { name: string; message: string }[];
}

/** The answer of POST /v1/calls/:format: the format's answer plus every call's record, in order. */
export type RunAnswer<F extends FormatName> = AnswerOf<F> & { calls: CallRecord[] };

/** A tool with its effective policy as JSON (GET /v1/tools): what the console shows as badges. */
export interface ToolInfo {
  name: string;
  title?: string;
  description: string;
  /** "valibot" (code), "http", "openapi", "mcp:<url>", "json-schema". */
  source: string;
  hash: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** How consoles show its calls and results, when the tool says. */
  render?: ToolRender;
  policy: {
    risk: Risk;
    readOnly: boolean;
    idempotent: boolean;
    /** "conditional": a predicate on the arguments decides per call. */
    approval: "never" | "always" | "conditional";
    /** Absent: unlimited. keyed: one gate per resource; key: the JSON Pointer naming it, when it is one. */
    /** The gate's rules (see src/gates/rules.ts), its group, whether calls are gated per resource and, for a pointer, which. */
    concurrency?: GateRules & { group?: string; keyed: boolean; key?: string };
    timeoutMs?: number;
    retry?: { attempts: number };
    outputBudget?: number;
    /** On the tenant's deny list: listed, but every call is denied. */
    denied: boolean;
  };
}

export interface WhoAmI {
  tenant: string;
  key: { name: string; scopes: ("call" | "admin")[] };
}

export interface ApprovalInfo {
  state: "requested" | "approved" | "denied" | "expired" | "cancelled";
  reason?: string;
  decidedAt?: number;
  expiresAt?: number;
}

/** One call as the ledger answers it (GET /v1/calls/:id, list items, approvals). */
export interface CallEntry {
  record: CallRecord;
  /** The stored record was cut to fit; the full output pages through result(). */
  truncated: boolean;
  resultChars: number | null;
  /** When the call was first accepted (ms): record.startedAt moves when the call runs again, this does not. */
  createdAt: number;
  approval: ApprovalInfo | null;
  cancelRequested: boolean;
  /** The name of the key the call was made with (never the key); null when unknown (older records). */
  key: string | null;
  /** Where the call came in; null for calls recorded before surfaces were (and for local runs). */
  surface: CallSurface | null;
}

export interface CallQuery {
  tool?: string;
  status?: CallStatus;
  /** Calls whose id starts with this (an exact id matches itself). */
  callId?: string;
  /** The name of the key (or `oauth:<client>#<grant>`) that made the calls; a call key sees only its own anyway. */
  key?: string;
  surface?: CallSurface;
  /** Epoch ms or an ISO date: calls started at or after it. */
  since?: number | string;
  /** Epoch ms or an ISO date: calls started at or before it. */
  until?: number | string;
  limit?: number;
  cursor?: string;
}

export interface CallPage {
  calls: CallEntry[];
  /** Pass as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export interface ResultPage {
  callId: string;
  offset: number;
  limit: number;
  total: number;
  text: string;
  nextOffset: number | null;
}

export interface CancelAnswer {
  callId: string;
  state: "cancelled" | "cancel_requested";
  call: CallEntry;
}

/** POST /v1/calls/:id/input: `resumed` once every open question is answered, else `awaiting_input` with the rest. */
export interface InputAnswer {
  callId: string;
  state: "resumed" | "awaiting_input";
  call: CallEntry;
}

/** One rule that asks for approval: where it is written (`policy.approval`, `requireApprovalFor.risk` …) and what it says. */
export interface ApprovalReason {
  rule: "policy.approval" | "requireApprovalFor.tools" | "requireApprovalFor.risk" | "hook" | "unknown" | (string & {});
  detail: string;
}

/** A call awaiting an admin's decision (GET /v1/approvals). */
export interface PendingApproval {
  callId: string;
  tool: string;
  /** Masked arguments. */
  args: JsonValue;
  requestedAt: number;
  /** When it turns denied by itself; null when it never expires. */
  expiresAt: number | null;
  /** Who asked: the key's name, or `oauth:<client>#<grant>`; null for records older than keys. */
  key: string | null;
  /** Where the call came in (http, mcp, binding); null when not recorded. */
  surface: CallSurface | null;
  /** The tool's risk level, as its effective policy says now. */
  risk: Risk;
  /** Why it waits: every rule that asks for approval of this call's tool. */
  reasons: ApprovalReason[];
}

export interface ApprovalPage {
  approvals: PendingApproval[];
  nextCursor: string | null;
}

/** POST /v1/approvals/:id: a denial answers the entry; an approval answers at once and runs the call after. */
export type DecisionAnswer =
  | { callId: string; decision: "deny"; call: CallEntry }
  | { callId: string; decision: "approve"; status: "running" };

export interface GateSnapshot {
  gate: string;
  limit: number;
  maxQueue: number;
  holders: { callId: string; tool: string; since: number; expiresAt: number }[];
  queueDepth: number;
  queued: { callId: string; tool: string; since: number }[];
}

export interface GatePage {
  gates: GateSnapshot[];
  next?: string;
}

/** `ready`: the stream knows where it starts; every event after it arrives (sent first, and on each reconnect). */
export type ServerEventType = "ready" | "call.started" | "call.progress" | "call.input_required" | "call.finished" | "approval.requested" | "approval.decided" | "gate.changed";

/** One event of GET /v1/events: its SSE id (resume with it) and its JSON data. */
export interface ServerEvent {
  id?: string;
  type: ServerEventType | (string & {});
  data: { type?: string; at?: number; callId?: string; tool?: string; [key: string]: JsonValue | undefined };
}

/** The rules a key or an OAuth grant may carry (GET/POST /v1/keys, the consent decision). */
export interface CallerRules {
  /** Only these tools; absent: every tool. */
  tools?: string[];
  /** Calls per minute, shared by every isolate. */
  ratePerMinute?: number;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
}

/** A key of the bundled configuration (changes only with a deploy). */
export interface ConfiguredKey {
  source: "config";
  name: string;
  scopes: ("call" | "admin")[];
}

/** A key created at runtime; never its secret or hash. */
export interface RuntimeKey extends CallerRules {
  source: "runtime";
  id: string;
  name: string;
  scopes: ("call" | "admin")[];
  createdAt: number;
  lastUsedAt?: number;
  rotatedAt?: number;
  previousValidUntil?: number;
  revokedAt?: number;
}

export interface NewKeyInput extends CallerRules {
  name: string;
  scopes: ("call" | "admin")[];
}

/** The answer that carries a secret: shown once, never again. */
export interface KeySecret {
  key: RuntimeKey;
  secret: string;
}

/** A pending OAuth authorization, as its consent page shows it (every string comes from the client). */
export interface ConsentDetails {
  consent: {
    clientId: string;
    clientName: string;
    /** Set for a client identified by its metadata document's URL: a domain the client controls. */
    clientDomain?: string;
    clientUri?: string;
    redirectUri: string;
    redirectHost: string;
    redirectIsLoopback: boolean;
    scope: string[];
  };
  /** The tenant's tools, for the grant's allow-list. */
  tools: string[];
}

export interface ConsentDecision extends CallerRules {
  decision: "approve" | "deny";
  scope?: "call" | "admin";
}

/** An OAuth grant, as admins list it. */
export interface GrantInfo {
  id: string;
  clientId: string;
  scope: string[];
  createdAt: number;
  expiresAt?: number;
  redirectUri?: string;
  details?: { clientName?: string; approvedBy?: string } & CallerRules;
}

/** One remote MCP tool as GET /v1/adapters shows it: its definition now and how pinning treats it. */
export interface RemoteToolInfo {
  tool: string;
  remoteName: string;
  hash: string;
  state: "approved" | "unapproved" | "changed" | "denied";
  /** Whether a call of it passes the pinning check now. */
  callable: boolean;
  /** The pin; `definition` is the approved one, given when the tool changed since (for a diff). */
  approved?: { hash: string; by: string; at: string; definition?: unknown };
  denied?: { hash: string; by: string; at: string };
  definition: unknown;
}

/** One MCP server: its declaration, its state and its tools as listed now. */
export interface McpServerInfo {
  name: string;
  url: string;
  upstream: string;
  prefix?: string;
  pinning: string;
  /** Set when the server could not be listed for this answer. */
  error?: string;
  status: {
    reachable: boolean;
    checkedAt: number;
    listedAt?: number;
    lastError?: { at: number; message: string };
    breaker: { failures: number; openUntil: number };
  };
  tools: RemoteToolInfo[];
}

/** GET /v1/adapters: the egress policy, each static kind's declarations, and the MCP servers. */
export interface AdaptersAnswer {
  egress: unknown;
  mcp: McpServerInfo[];
  [kind: string]: unknown;
}
