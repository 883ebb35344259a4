/**
 * The CPU a call costs with tracing on, against the same call with tracing off, and against the
 * OpenTelemetry JS SDK building the same spans (what @microlabs/otel-cf-workers runs on). One call of
 * an async, retried, journaled tool per request (the Worker builds its pipeline options per request):
 * - off: no tracer;
 * - toolgate spans: src/telemetry's tracer (execute_tool, attempt, ledger claim and record) and the
 *   request's spans encoded as OTLP/JSON, as the exporter sends them;
 * - OTel SDK: BasicTracerProvider spans from the same events, SimpleSpanProcessor into memory, and
 *   JsonTraceSerializer (@opentelemetry/otlp-transformer) over them.
 * Usage: node scripts/run-ts.mjs bench/telemetry.ts
 */
import { context, trace, type Span } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import * as v from "valibot";
import { createRegistry, defineTool, executeCall, type ExecuteOptions } from "../src/index";
import type { CallEvent } from "../src/events";
import type { CallJournal } from "../src/journal";
import { createCallTracer } from "../src/telemetry/call-tracer";
import { encodeOtlpJson } from "../src/telemetry/otlp-json";
import { parseTraceparent } from "../src/telemetry/trace-context";
import { fmt, table } from "./harness";
import { CLOCK, interleave } from "./peers/rounds";
import { isMain } from "./peers/is-main";

const lookup = defineTool({
  name: "lookup",
  description: "Look an order up",
  input: v.object({ id: v.string() }),
  policy: { readOnly: true, retry: { attempts: 3 } },
  run: async ({ id }) => ({ id, status: "shipped", items: 3 }),
});
const registry = createRegistry([lookup]);
const journal: CallJournal = { begin: async () => ({ kind: "new" }), finish: async () => {} };
const call = { id: "call_1", name: "lookup", arguments: '{"id":"o-17"}' };
const parent = parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!;
const source = { resource: { "service.name": "toolgate" }, scope: { name: "toolgate" } };
const attributes = { "toolgate.surface": "http", "toolgate.key": "key_1" };

/** What the candidates produce, kept so the engine cannot drop it. */
let sink = 0;

async function off(): Promise<void> {
  const result = await executeCall(call, { registry, journal });
  sink += result.record.attempts;
}

async function toolgateSpans(): Promise<void> {
  const tracer = createCallTracer({ parent, attributes });
  const result = await executeCall(call, { registry, journal, tracer });
  sink += result.record.attempts + encodeOtlpJson(tracer.take(), source).length;
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const sdkTracer = provider.getTracer("toolgate");
const parentContext = trace.setSpanContext(context.active(), {
  traceId: parent.traceId,
  spanId: parent.spanId,
  traceFlags: 1,
  isRemote: true,
});

/** The same spans as toolgate's tracer, from the same events, through the SDK. */
function sdkHooks(): ExecuteOptions["hooks"] {
  let root: Span | undefined;
  let attempt: Span | undefined;
  return {
    onEvent(event: CallEvent) {
      if (event.type === "call.started") {
        root ??= sdkTracer.startSpan(
          `execute_tool ${event.tool}`,
          {
            startTime: event.at,
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": event.tool,
              "gen_ai.tool.call.id": event.callId,
              ...attributes,
            },
          },
          parentContext,
        );
        attempt = sdkTracer.startSpan(
          `attempt ${event.attempt}`,
          { startTime: event.at, attributes: { "toolgate.attempt": event.attempt } },
          trace.setSpan(parentContext, root),
        );
      } else if (event.type === "attempt.finished") attempt?.end(event.at);
      else if (event.type === "call.finished" && root) {
        const { record } = event;
        root.setAttributes({
          "gen_ai.tool.type": "function",
          "toolgate.tenant": record.tenant,
          "toolgate.call.status": record.status,
          "toolgate.call.attempts": record.attempts,
        });
        root.end(record.startedAt + record.durationMs);
      }
    },
  };
}

async function sdkSpans(): Promise<void> {
  const hooks = sdkHooks();
  const timed: CallJournal = {
    begin: (claim) => {
      const span = sdkTracer.startSpan("ledger claim", {}, parentContext);
      return journal.begin(claim).finally(() => span.end());
    },
    finish: (record) => {
      const span = sdkTracer.startSpan("ledger record", {}, parentContext);
      return journal.finish(record).finally(() => span.end());
    },
  };
  const result = await executeCall(call, { registry, journal: timed, hooks });
  const spans = exporter.getFinishedSpans();
  exporter.reset();
  sink += result.record.attempts + (JsonTraceSerializer.serializeRequest([...spans])?.length ?? 0);
}

export async function benchTelemetry(): Promise<string> {
  const timed = await interleave([
    { name: "off", op: off },
    { name: "toolgate spans + OTLP/JSON", op: toolgateSpans },
    { name: "OTel SDK spans + OTLP/JSON", op: sdkSpans },
  ]);
  const base = timed[0]!.nsPerOp;
  const rows = timed.map((t) => ({
    candidate: t.name,
    "CPU/call": fmt(t.nsPerOp),
    "vs off": `${(t.nsPerOp / base).toFixed(2)}×`,
    spread: `${(t.spread * 100).toFixed(0)}%`,
  }));
  return `Tracing CPU per call (${CLOCK} clock; ${sink > 0 ? "checked" : "?"})\n${table(rows)}`;
}

if (isMain("telemetry")) console.log(await benchTelemetry());
