import { encodeOtlpJson, type SpanSource } from "../../../src/telemetry/otlp-json";
import { encodeOtlpProtobuf } from "../../../src/telemetry/otlp-protobuf";
import type { TraceSpan } from "../../../src/telemetry/span";
import type { TracesConfig } from "../config";

/** Where an isolate sends a tenant's spans, with the header values read from its Worker secrets. */
export interface ExportTarget {
  tenant: string;
  config: TracesConfig;
  headers: Record<string, string>;
}

/** Most spans one request body carries. */
const MAX_BATCH = 512;

/**
 * One isolate's spans for one endpoint, waiting to be sent. Bounded: beyond maxQueuedSpans, new spans
 * are dropped and counted (a slow or down collector never holds a call back, nor memory). One export
 * is in flight at a time, each bounded by timeoutMs; a failed one drops its spans and counts them.
 */
class SpanQueue {
  spans: TraceSpan[] = [];
  /** Spans dropped since the isolate started: sent with each export as toolgate.telemetry.dropped_spans. */
  dropped = 0;
  sending: Promise<void> | undefined;
}

const queues = new Map<string, SpanQueue>();

function queueFor(target: ExportTarget): SpanQueue {
  const key = `${target.tenant}\n${target.config.endpoint}`;
  let queue = queues.get(key);
  if (!queue) queues.set(key, (queue = new SpanQueue()));
  return queue;
}

/** Queues a request's spans (and counts those its tracer dropped), then sends what is queued. */
export function exportSpans(spans: TraceSpan[], droppedByTracer: number, target: ExportTarget): Promise<void> {
  const queue = queueFor(target);
  const room = Math.max(0, target.config.maxQueuedSpans - queue.spans.length);
  queue.dropped += droppedByTracer + Math.max(0, spans.length - room);
  queue.spans.push(...spans.slice(0, room));
  return flush(queue, target);
}

async function flush(queue: SpanQueue, target: ExportTarget): Promise<void> {
  // Requests that end while an export is in flight leave their spans for the next one: only one
  // request's waitUntil sends at a time, the others end at once.
  if (queue.sending) return;
  while (queue.spans.length > 0) {
    const batch = queue.spans.splice(0, MAX_BATCH);
    queue.sending = send(batch, queue, target).then(
      () => {},
      (error: unknown) => {
        queue.dropped += batch.length;
        console.warn(
          JSON.stringify({
            msg: "telemetry export failed",
            tenant: target.tenant,
            endpoint: target.config.endpoint,
            dropped: batch.length,
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      },
    );
    try {
      await queue.sending;
    } finally {
      queue.sending = undefined;
    }
  }
}

async function send(batch: TraceSpan[], queue: SpanQueue, target: ExportTarget): Promise<void> {
  const { config } = target;
  const source = exportSource(config.serviceName, target.tenant, "toolgate.telemetry.dropped_spans", queue.dropped);
  await postOtlp(
    config,
    target.headers,
    () => encodeOtlpJson(batch, source),
    () => encodeOtlpProtobuf(batch, source),
  );
}

/** Who an export comes from (OTLP resource and scope): the service, the tenant, and what it dropped so far. */
export function exportSource(serviceName: string, tenant: string, droppedName: string, dropped: number): SpanSource {
  return {
    resource: { "service.name": serviceName, "toolgate.tenant": tenant, [droppedName]: dropped },
    scope: { name: "toolgate" },
  };
}

/** POSTs one OTLP/HTTP export in the configured encoding; throws when it fails, times out or is refused. */
export async function postOtlp(
  config: { endpoint: string; protocol: "http/protobuf" | "http/json"; timeoutMs: number },
  headers: Record<string, string>,
  json: () => string,
  protobuf: () => Uint8Array,
): Promise<void> {
  const asJson = config.protocol === "http/json";
  const response = await fetch(config.endpoint, {
    method: "POST",
    headers: { ...headers, "content-type": asJson ? "application/json" : "application/x-protobuf" },
    body: asJson ? json() : protobuf(),
    signal: AbortSignal.timeout(config.timeoutMs),
  });
  // The body is not needed; reading it frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw new Error(`the collector answered ${response.status}`);
}
