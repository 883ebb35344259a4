import type { CallEvent } from "../events";
import type { CallJournal } from "../journal";
import type { CallRecord } from "../result";
import type { CallTracer } from "../tracer";
import type { SpanAttribute, TraceSpan } from "./span";
import { formatTraceparent, parseTraceparent, randomSpanId, randomTraceId, type TraceContext } from "./trace-context";

/** What one request's tracer is told up front. */
export interface CallTracerOptions {
  /** The caller's trace (traceparent): the calls' spans continue it. Absent: a new trace. */
  parent?: TraceContext | undefined;
  /** Attributes of every call's span: who called, through which surface (toolgate.*, enduser.id). */
  attributes?: Record<string, SpanAttribute>;
  /** Most spans kept until taken (a call's children beyond it are dropped and counted). Default 1,000. */
  maxSpans?: number;
  now?: () => number;
}

/** A request's tracer: hand it to the pipeline (ExecuteOptions.tracer), then take its spans once calls end. */
export interface RequestTracer extends CallTracer {
  readonly traceId: string;
  /** The attributes every call's span gets: a host may add to them until its calls start. */
  readonly attributes: Record<string, SpanAttribute>;
  /**
   * Continues the caller's trace named later than the tracer was made (an MCP request's
   * `_meta.traceparent`). Only before any span: false when it came too late or the header is invalid.
   */
  adopt(traceparent: unknown, tracestate?: unknown): boolean;
  /** Resolves once every call it has heard of has finished, its journal writes too (take() then has them all). */
  idle(): Promise<void>;
  /**
   * The spans of the calls that have finished (their journal writes too), each call's span first;
   * each is handed over once. Take them when the request's calls are answered.
   */
  take(): TraceSpan[];
  /** Spans not kept because maxSpans was reached. */
  readonly dropped: number;
  /**
   * A span of what happened before this request's calls, under the caller's span (an approved call's
   * wait for its decision): handed over by the next take().
   */
  addSpan(name: string, startMs: number, endMs: number, attributes: Record<string, SpanAttribute>): void;
}

/** What is known of one call until it finishes. */
interface OpenCall {
  root: TraceSpan;
  children: TraceSpan[];
  attempt: TraceSpan | undefined;
  /** Client spans the attempt opened (ToolContext.span), innermost last: its upstream requests' parent. */
  opened: TraceSpan[];
  finished: boolean;
  /** Journal writes not yet settled: the call's spans are handed over once none are left. */
  writing: number;
}

/**
 * Builds OpenTelemetry spans of the calls of one request (a call, a batch, an MCP message) from the
 * pipeline's events: one `execute_tool {tool}` span per call with the GenAI attributes
 * (gen_ai.operation.name, gen_ai.tool.name, gen_ai.tool.call.id, gen_ai.tool.type, error.type), and
 * children for the gate wait, each attempt, each upstream HTTP request (HTTP client conventions) and
 * each journal write. Every call of the request is in one trace: the caller's, or a new one.
 */
export function createCallTracer(options: CallTracerOptions = {}): RequestTracer {
  const { attributes = {}, maxSpans = 1_000, now = Date.now } = options;
  let parent = options.parent;
  let traceId = parent?.traceId ?? randomTraceId();
  let started = false;
  const open = new Map<string, OpenCall>();
  let kept = 0;
  let dropped = 0;
  let waiters: (() => void)[] = [];
  let checking = false;
  /** Spans of no call (addSpan), handed over by the next take(). */
  let loose: TraceSpan[] = [];

  /**
   * Wakes idle() once no call is open. Checked a microtask later: a call's record write starts right
   * after its call.finished event, in the same turn.
   */
  const checkIdle = () => {
    if (checking || waiters.length === 0) return;
    checking = true;
    queueMicrotask(() => {
      checking = false;
      for (const call of open.values()) if (!call.finished || call.writing > 0) return;
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    });
  };

  const child = (call: OpenCall, name: string, kind: TraceSpan["kind"], startMs: number, spanParent = call.root) => {
    started = true;
    if (kept >= maxSpans) {
      dropped++;
      return undefined;
    }
    kept++;
    const span = newSpan(traceId, name, kind, startMs, {});
    span.parentSpanId = spanParent.spanId;
    call.children.push(span);
    return span;
  };

  const callOf = (callId: string, tool: string, at: number): OpenCall | undefined => {
    let call = open.get(callId);
    if (call) return call;
    started = true;
    if (kept >= maxSpans) {
      dropped++;
      return undefined;
    }
    kept++;
    const root = newSpan(traceId, `execute_tool ${tool}`, "internal", at, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool,
      "gen_ai.tool.call.id": callId,
      ...attributes,
    });
    if (parent) {
      root.parentSpanId = parent.spanId;
      if (parent.traceState !== undefined) root.traceState = parent.traceState;
    }
    call = { root, children: [], attempt: undefined, opened: [], finished: false, writing: 0 };
    open.set(callId, call);
    return call;
  };

  /** Finished calls whose journal writes have settled: their spans, each call's own first. */
  const settled = (): TraceSpan[] => {
    const spans: TraceSpan[] = loose;
    loose = [];
    for (const [callId, call] of open) {
      if (!call.finished || call.writing > 0) continue;
      open.delete(callId);
      // The call's span holds its children: the journal's last write ends after the record's duration.
      for (const span of call.children) if (span.endMs > call.root.endMs) call.root.endMs = span.endMs;
      spans.push(call.root, ...call.children);
    }
    kept -= spans.length;
    return spans;
  };

  /** The call's span ends as its record says; its spans are handed over once its journal writes settle. */
  /** Spans a tool opened and left open (an attempt timed out under it) end with their attempt. */
  const closeOpened = (call: OpenCall, at: number) => {
    for (const span of call.opened.splice(0)) span.endMs = at;
  };

  const endOf = (call: OpenCall, record: CallRecord) => {
    closeOpened(call, now());
    endCall(call.root, record);
    call.finished = true;
    checkIdle();
  };

  const onEvent = (event: CallEvent): void => {
    const call = callOf(event.callId, event.tool, event.at);
    if (!call) return;
    switch (event.type) {
      case "gate.decided": {
        const span = child(call, "gate_wait", "internal", event.since);
        if (!span) return;
        span.endMs = event.at;
        span.attributes["toolgate.gate"] = event.gate;
        span.attributes["toolgate.gate.granted"] = event.granted;
        return;
      }
      case "call.started": {
        call.attempt = child(call, `attempt ${event.attempt}`, "internal", event.at);
        if (call.attempt) call.attempt.attributes["toolgate.attempt"] = event.attempt;
        return;
      }
      case "attempt.finished": {
        closeOpened(call, event.at);
        const span = call.attempt;
        if (!span) return;
        span.endMs = event.at;
        if (event.error !== undefined) {
          span.attributes["error.type"] = event.error;
          span.error = event.error;
        }
        return;
      }
      // A call parked for approval ends here; its approved run is a call of its own.
      case "approval.requested":
        call.root.attributes["toolgate.approval.requested"] = true;
        endOf(call, event.record);
        return;
      case "call.finished":
        endOf(call, event.record);
        return;
      default:
        return;
    }
  };

  const fetchFor = (callId: string, _attempt: number, inner: typeof fetch): typeof fetch => {
    return (input, init) => {
      const call = open.get(callId);
      const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
      const under = call && (call.opened.at(-1) ?? call.attempt ?? call.root);
      const span = call ? child(call, method, "client", now(), under) : undefined;
      if (!span) return inner(input, init);
      // The URL without its query, which may carry a credential.
      const url = new URL(input instanceof Request ? input.url : String(input));
      span.attributes["http.request.method"] = method;
      span.attributes["url.full"] = `${url.origin}${url.pathname}`;
      span.attributes["server.address"] = url.hostname;
      span.attributes["server.port"] = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      headers.set("traceparent", formatTraceparent(traceId, span.spanId));
      if (parent?.traceState !== undefined) headers.set("tracestate", parent.traceState);
      return inner(input, { ...init, headers }).then(
        (response) => {
          span.endMs = now();
          span.attributes["http.response.status_code"] = response.status;
          if (response.status >= 400) span.error = span.attributes["error.type"] = String(response.status);
          return response;
        },
        (error: unknown) => {
          span.endMs = now();
          const type = error instanceof Error ? error.name : "Error";
          span.attributes["error.type"] = type;
          span.error = type;
          throw error;
        },
      );
    };
  };

  const journalFor = (journal: CallJournal): CallJournal => {
    const timed = <T>(callId: string, tool: string, operation: string, write: () => Promise<T>): Promise<T> => {
      const at = now();
      const call = callOf(callId, tool, at);
      const span = call ? child(call, `ledger ${operation}`, "internal", at) : undefined;
      if (!call || !span) return write();
      call.writing++;
      span.attributes["toolgate.ledger.operation"] = operation;
      const end = () => {
        span.endMs = now();
        call.writing--;
        checkIdle();
      };
      return write().then(
        (value) => (end(), value),
        (error: unknown) => {
          span.error = span.attributes["error.type"] = error instanceof Error ? error.name : "Error";
          end();
          throw error;
        },
      );
    };
    const traced: CallJournal = {
      begin: (call) => timed(call.callId, call.tool.name, "claim", () => journal.begin(call)),
      finish: (record) => timed(record.callId, record.tool, "record", () => journal.finish(record)),
    };
    if (journal.handOff) traced.handOff = journal.handOff.bind(journal);
    if (journal.progress) traced.progress = journal.progress.bind(journal);
    return traced;
  };

  return {
    get traceId() {
      return traceId;
    },
    attributes,
    adopt(traceparent, tracestate) {
      if (started || typeof traceparent !== "string") return false;
      const context = parseTraceparent(traceparent, typeof tracestate === "string" ? tracestate : undefined);
      if (!context) return false;
      parent = context;
      traceId = context.traceId;
      return true;
    },
    idle() {
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        checkIdle();
      });
    },
    onEvent,
    fetch: fetchFor,
    journal: journalFor,
    take: settled,
    get dropped() {
      return dropped;
    },
    traceparentOf(callId, tool) {
      // A call with no room for its span is counted dropped once, by its events.
      const call = open.get(callId) ?? (kept < maxSpans ? callOf(callId, tool, now()) : undefined);
      return call ? formatTraceparent(traceId, call.root.spanId) : undefined;
    },
    span(callId, name, spanAttributes) {
      const call = open.get(callId);
      const span = call && child(call, name, "client", now(), call.opened.at(-1) ?? call.attempt ?? call.root);
      if (!call || !span) return undefined;
      Object.assign(span.attributes, spanAttributes);
      call.opened.push(span);
      return {
        traceparent: formatTraceparent(traceId, span.spanId),
        ...(parent?.traceState === undefined ? {} : { tracestate: parent.traceState }),
        end(error) {
          if (!call.opened.includes(span)) return;
          call.opened.splice(call.opened.indexOf(span), 1);
          span.endMs = now();
          if (error !== undefined) span.error = span.attributes["error.type"] = error;
        },
      };
    },
    handedOff(record) {
      const call = open.get(record.callId);
      if (call) endOf(call, record);
    },
    addSpan(name, startMs, endMs, spanAttributes) {
      started = true;
      if (kept >= maxSpans) {
        dropped++;
        return;
      }
      kept++;
      const span = newSpan(traceId, name, "internal", startMs, spanAttributes);
      span.endMs = endMs;
      if (parent) span.parentSpanId = parent.spanId;
      loose.push(span);
    },
  };
}

/** A span that starts now and has not ended yet (its end is its start until it does). */
function newSpan(
  traceId: string,
  name: string,
  kind: TraceSpan["kind"],
  startMs: number,
  attributes: TraceSpan["attributes"],
): TraceSpan {
  return { traceId, spanId: randomSpanId(), name, kind, startMs, endMs: startMs, attributes };
}

/** The call's span from its record: when it started, how long it took, how it ended. */
function endCall(root: TraceSpan, record: CallRecord): void {
  root.startMs = record.startedAt;
  root.endMs = Math.max(root.endMs, record.startedAt + record.durationMs);
  const attributes = root.attributes;
  attributes["gen_ai.tool.type"] = toolType(record.source);
  attributes["toolgate.tenant"] = record.tenant;
  attributes["toolgate.call.status"] = record.status;
  attributes["toolgate.call.attempts"] = record.attempts;
  if (record.replay) attributes["toolgate.call.replay"] = true;
  if (record.permission) attributes["toolgate.permission"] = record.permission;
  if (record.error && !WAITING.has(record.status)) {
    attributes["error.type"] = record.error.code;
    root.error = record.error.message;
  }
}

/** Endings that are not failures: the call waits for someone. */
const WAITING = new Set<string>(["pending", "running", "awaiting_input"]);

/**
 * gen_ai.tool.type: a code tool runs here ("function"); an HTTP, OpenAPI or remote MCP tool calls
 * another service ("extension").
 */
function toolType(source: string): string {
  return source === "valibot" || source === "json-schema" || source === "" ? "function" : "extension";
}
