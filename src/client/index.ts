/**
 * The typed client of the toolgate HTTP API, `toolgate/client`, for browsers and Node.
 *
 * @module toolgate/client
 */
import { openEventSource, streamEvents, type EventSourceOptions, type EventStreamOptions } from "./events";
import { createTransport, type ClientOptions } from "./http";
import { runMixed, type MixedAnswer, type MixedOptions } from "./mixed";
import type {
  AdaptersAnswer,
  AnswerOf,
  ApprovalPage,
  CallEntry,
  CallPage,
  CallQuery,
  CancelAnswer,
  ConfiguredKey,
  ConnectionsAnswer,
  ConsentDecision,
  ConsentDetails,
  DecisionAnswer,
  DisconnectAnswer,
  GatePage,
  GrantInfo,
  InputAnswer,
  KeySecret,
  MetricsRange,
  MetricsSummary,
  NewKeyInput,
  ResultPage,
  RunAnswer,
  RuntimeKey,
  ServerEvent,
  ToolInfo,
  ToolListing,
  WhoAmI,
} from "../contract";
import type { FormatName } from "../formats/index";
import type { JsonObject, JsonValue } from "../json";
import { TERMINAL_STATUSES, type CallRecord } from "../result";

export { ApiError, isApiError } from "./http";
export type { ClientOptions } from "./http";
export type { EventSourceOptions, EventStreamOptions } from "./events";
export type { MixedAnswer, MixedOptions } from "./mixed";
export { resultOfRecord } from "../result";
export { CALL_SURFACES } from "../contract";
export type * from "../contract";

/** A typed client of the toolgate HTTP API, for browsers and Node. Every failure rejects with an ApiError. */
export interface ToolgateClient {
  health(): Promise<{ ok: true; version: string }>;
  /** The tenant and this key's scopes. */
  whoami(): Promise<WhoAmI>;
  /** Every tool with its effective policy and schemas (GET /v1/tools). */
  catalog(): Promise<ToolInfo[]>;
  /** The tools in a format's exact shape, ready to hand to that API. */
  tools<F extends FormatName>(format: F): Promise<ToolListing<F>>;
  /** Run a model's tool calls given in format F; the answer is what to append, plus the records. */
  run<F extends FormatName>(format: F, body: unknown, options?: { signal?: AbortSignal }): Promise<RunAnswer<F>>;
  /** Run a model's tool calls in any format (detected by the server); answered in the same format. */
  runDetected(
    body: unknown,
    options?: { signal?: AbortSignal },
  ): Promise<AnswerOf<FormatName> & { calls: CallRecord[] }>;
  /** One call by tool name and arguments; resolves with its record (whatever its outcome). */
  call(tool: string, args: JsonValue, options?: { id?: string; signal?: AbortSignal }): Promise<CallRecord>;
  /** One call's ledger entry; with `wait` (seconds), long-polls until the call is terminal. */
  record(callId: string, options?: { wait?: number; signal?: AbortSignal }): Promise<CallEntry>;
  /** Records, newest first. */
  records(query?: CallQuery): Promise<CallPage>;
  /** The records matching the query as NDJSON (one entry a line; a `{"nextCursor"}` line past `limit`). */
  exportRecords(query?: Omit<CallQuery, "cursor"> & { cursor?: string }): Promise<Response>;
  /**
   * The call's outcome: waits (long-polling, as long as it takes or until timeoutMs) until the call is
   * terminal, and resolves with its record. For calls that run on detached from their request.
   */
  result(callId: string, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<CallRecord>;
  /** The full output text of a call, a page at a time. */
  output(callId: string, options?: { offset?: number; limit?: number }): Promise<ResultPage>;
  cancel(callId: string, reason?: string): Promise<CancelAnswer>;
  /** Answers a call waiting for its caller (`awaiting_input`), keyed as its open questions (`error.inputRequests`). */
  answer(callId: string, inputResponses: Record<string, JsonObject>): Promise<InputAnswer>;
  /** Calls awaiting approval the caller sees (admin: all), newest first; `decidable` says which it may decide. */
  approvals(query?: { limit?: number; cursor?: string }): Promise<ApprovalPage>;
  /** Approve (the call then runs; wait on record(id, { wait })) or deny it (admin; approval "user": its user). */
  decide(callId: string, decision: "approve" | "deny", reason?: string): Promise<DecisionAnswer>;
  /** Concurrency gates: limit, holders, queue depth (admin). */
  gates(options?: { after?: string; limit?: number }): Promise<GatePage>;
  /** Calls, errors and latency per tool and gate over the last hour, day or week (admin). */
  metrics(range?: MetricsRange): Promise<MetricsSummary>;
  /** The tenant's adapters; for MCP servers their state and tools with pinning states (admin). */
  adapters(): Promise<AdaptersAnswer>;
  /** Approve or deny MCP tool definitions as listed now; with a hash, only that definition (admin). */
  reviewDefinitions(
    server: string,
    verdict: "approve" | "deny",
    tools: { tool: string; hash?: string }[],
  ): Promise<Record<string, unknown>>;
  /** Every key: the configuration's and those made at runtime (admin). */
  keys(): Promise<(ConfiguredKey | RuntimeKey)[]>;
  /** A new key; its secret is in this answer only (admin). */
  createKey(input: NewKeyInput): Promise<KeySecret>;
  /** A new secret; the old one keeps working for `graceSeconds` (default 3600) (admin). */
  rotateKey(id: string, graceSeconds?: number): Promise<KeySecret>;
  revokeKey(id: string): Promise<{ key: RuntimeKey }>;
  /** A pending OAuth sign-in's details (a person signed in, or admin). */
  consent(handle: string): Promise<ConsentDetails>;
  /** Approve or deny it (for the person signed in, or the tenant); where to send the browser back to. */
  decideConsent(handle: string, decision: ConsentDecision): Promise<{ redirectTo: string }>;
  /** OAuth grants: a person's own; an admin's every grant. */
  grants(): Promise<GrantInfo[]>;
  /** Revokes a grant: a person their own; an admin anyone's, naming its `owner` (default "tenant"). */
  revokeGrant(id: string, owner?: string): Promise<{ revoked: string }>;
  /** The caller's user's connections to upstream providers (never tokens); admins also get counts per provider. */
  connections(): Promise<ConnectionsAnswer>;
  /** Disconnects the caller's user from a provider: tokens removed, then revoked there where it can. */
  disconnect(name: string): Promise<DisconnectAnswer>;
  /** The live event stream, read with fetch (the key as a header); reconnects and resumes by default. */
  events(options?: EventStreamOptions): AsyncGenerator<ServerEvent>;
  /** The live event stream as an EventSource, opened with a short-lived token (never the key in a URL). */
  eventSource(options?: EventSourceOptions): Promise<EventSource>;
  /** A batch split between local tools (run here by the core) and the API, answered once in input order. */
  runMixed<F extends FormatName>(input: unknown, options: MixedOptions<F>): Promise<MixedAnswer<F>>;
}

const seg = encodeURIComponent;
/** The server's longest long-poll (GET /v1/calls/:id?wait=). */
const MAX_WAIT_SECONDS = 60;
const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

export function createClient(options: ClientOptions = {}): ToolgateClient {
  const http = createTransport(options);
  const withSignal = (signal?: AbortSignal) => (signal ? { signal } : {});
  return {
    health: () => http.json("/healthz"),
    whoami: () => http.json("/v1/whoami"),
    catalog: async () => (await http.json<{ tools: ToolInfo[] }>("/v1/tools")).tools,
    tools: (format) => http.json(`/v1/tools/${seg(format)}`),
    run: (format, body, o) => http.json(`/v1/calls/${seg(format)}`, { body, ...withSignal(o?.signal) }),
    runDetected: (body, o) => http.json("/v1/calls", { body, ...withSignal(o?.signal) }),
    async call(tool, args, o = {}) {
      const id = o.id ?? `call_${crypto.randomUUID()}`;
      const body = [{ id, type: "function", function: { name: tool, arguments: JSON.stringify(args) } }];
      const answer = await http.json<{ calls: CallRecord[] }>("/v1/calls/openai", { body, ...withSignal(o.signal) });
      return answer.calls[0]!;
    },
    record: (callId, o = {}) =>
      http.json(`/v1/calls/${seg(callId)}`, { query: { wait: o.wait }, ...withSignal(o.signal) }),
    records: (query = {}) => http.json("/v1/calls", { query: { ...query } }),
    exportRecords: (query = {}) => http.raw("/v1/calls", { query: { ...query, as: "ndjson" } }),
    async result(callId, o = {}) {
      const until = o.timeoutMs === undefined ? Infinity : Date.now() + o.timeoutMs;
      for (;;) {
        const left = until - Date.now();
        const wait = Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.ceil(left / 1000)));
        const entry = await http.json<CallEntry>(`/v1/calls/${seg(callId)}`, {
          query: { wait },
          ...withSignal(o.signal),
        });
        if (TERMINAL.has(entry.record.status) || left <= 0) return entry.record;
      }
    },
    output: (callId, o = {}) => http.json(`/v1/calls/${seg(callId)}/result`, { query: { ...o } }),
    cancel: (callId, reason) =>
      http.json(`/v1/calls/${seg(callId)}/cancel`, { method: "POST", body: reason === undefined ? {} : { reason } }),
    answer: (callId, inputResponses) => http.json(`/v1/calls/${seg(callId)}/input`, { body: { inputResponses } }),
    approvals: (query = {}) => http.json("/v1/approvals", { query: { ...query } }),
    decide: (callId, decision, reason) =>
      http.json(`/v1/approvals/${seg(callId)}`, {
        method: "POST",
        body: reason === undefined ? { decision } : { decision, reason },
      }),
    gates: (o = {}) => http.json("/v1/gates", { query: { ...o } }),
    metrics: (range = "hour") => http.json("/v1/metrics", { query: { range } }),
    adapters: () => http.json("/v1/adapters"),
    reviewDefinitions: (server, verdict, tools) =>
      http.json(`/v1/adapters/mcp/${seg(server)}/${verdict}`, { body: { tools } }),
    keys: async () => (await http.json<{ keys: (ConfiguredKey | RuntimeKey)[] }>("/v1/keys")).keys,
    createKey: (input) => http.json("/v1/keys", { body: input }),
    rotateKey: (id, graceSeconds) =>
      http.json(`/v1/keys/${seg(id)}/rotate`, { body: graceSeconds === undefined ? {} : { graceSeconds } }),
    revokeKey: (id) => http.json(`/v1/keys/${seg(id)}/revoke`, { method: "POST" }),
    consent: (handle) => http.json(`/v1/oauth/consents/${seg(handle)}`),
    decideConsent: (handle, decision) => http.json(`/v1/oauth/consents/${seg(handle)}`, { body: decision }),
    grants: async () => (await http.json<{ grants: GrantInfo[] }>("/v1/oauth/grants")).grants,
    revokeGrant: (id, owner) =>
      http.json(`/v1/oauth/grants/${seg(id)}/revoke`, owner ? { body: { owner } } : { method: "POST" }),
    connections: () => http.json("/v1/connections"),
    disconnect: (name) => http.json(`/v1/connections/${seg(name)}`, { method: "DELETE" }),
    events: (o) => streamEvents(http, o),
    eventSource: (o) => openEventSource(http, o),
    runMixed: (input, o) => runMixed(http, input, o),
  };
}
