import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import type { ReceivedMetric, ReceivedPoint } from "./otlp-received";

/** A span as the receiver decoded it, from either encoding: ids as hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  traceState: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  status: { code: number; message: string };
}

/** One export request: its encoding, headers, resource attributes, and its spans or metrics. */
export interface ReceivedExport {
  path: string;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  resource: Record<string, string | number | boolean>;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
}

/** An OTLP/HTTP traces receiver on 127.0.0.1 that decodes what it is sent and can be told to hang. */
export interface OtlpReceiver {
  url: string;
  /** Its OTLP/HTTP metrics endpoint; GET /received answers what it received as JSON. */
  metricsUrl: string;
  exports: ReceivedExport[];
  spans(): ReceivedSpan[];
  /** While true, requests are held unanswered (a slow collector); false answers the held ones. */
  hang(on: boolean): void;
  close(): Promise<void>;
}

// The official definitions (open-telemetry/opentelemetry-proto, test/fixtures/otlp/).
const PROTO_DIR = fileURLToPath(new URL("../fixtures/otlp/", import.meta.url));
let requestType: Promise<protobuf.Type> | undefined;

function exportRequestType(): Promise<protobuf.Type> {
  requestType ??= loadType("trace/v1/trace_service.proto", "trace.v1.ExportTraceServiceRequest");
  return requestType;
}

let metricsType: Promise<protobuf.Type> | undefined;
function metricsRequestType(): Promise<protobuf.Type> {
  metricsType ??= loadType("metrics/v1/metrics_service.proto", "metrics.v1.ExportMetricsServiceRequest");
  return metricsType;
}

async function loadType(file: string, name: string): Promise<protobuf.Type> {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => `${PROTO_DIR}${target}`;
  await root.load(`opentelemetry/proto/collector/${file}`, { keepCase: false });
  return root.lookupType(`opentelemetry.proto.collector.${name}`);
}

type RawPoint = Record<string, any>;
const num = (value: unknown) => (value === undefined || value === null ? undefined : Number(String(value)));

function point(raw: RawPoint): ReceivedPoint {
  const out: ReceivedPoint = {
    attributes: plainAttributes(raw.attributes),
    startNs: String(raw.startTimeUnixNano ?? "0"),
    timeNs: String(raw.timeUnixNano ?? "0"),
  };
  const value = num(raw.asDouble) ?? num(raw.asInt);
  if (value !== undefined) out.value = value;
  if (raw.bucketCounts !== undefined) {
    out.count = num(raw.count)!;
    out.sum = num(raw.sum)!;
    out.max = num(raw.max)!;
    out.bucketCounts = (raw.bucketCounts as unknown[]).map((n) => Number(String(n)));
    out.bounds = (raw.explicitBounds ?? []) as number[];
  }
  return out;
}

/** The metrics of an ExportMetricsServiceRequest, from its JSON or protobuf body. */
async function decodeMetrics(contentType: string, body: Buffer) {
  let request: any;
  if (contentType.startsWith("application/json")) request = JSON.parse(body.toString("utf8"));
  else {
    const type = await metricsRequestType();
    request = type.toObject(type.decode(body), { longs: String, defaults: false });
  }
  const metrics: ReceivedMetric[] = [];
  let resource: Record<string, string | number | boolean> = {};
  for (const resourceMetrics of request.resourceMetrics ?? []) {
    resource = plainAttributes(resourceMetrics.resource?.attributes);
    for (const scopeMetrics of resourceMetrics.scopeMetrics ?? [])
      for (const metric of scopeMetrics.metrics ?? []) {
        const kind = metric.histogram ? "histogram" : metric.sum ? "sum" : "gauge";
        const data = metric[kind];
        metrics.push({
          name: metric.name,
          unit: metric.unit ?? "",
          kind,
          temporality: Number(data.aggregationTemporality ?? 0),
          monotonic: data.isMonotonic === true,
          points: (data.dataPoints ?? []).map(point),
        });
      }
  }
  return { resource, spans: [], metrics };
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: unknown; doubleValue?: number };
type KeyValue = { key: string; value?: AnyValue };

function plainAttributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value = {} } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.intValue !== undefined) out[key] = Number(String(value.intValue));
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

const hex = (value: unknown): string =>
  value === undefined || value === null
    ? ""
    : typeof value === "string"
      ? value
      : Buffer.from(value as Uint8Array).toString("hex");

/** The request's spans and resource, from its OTLP/JSON or protobuf body, in one shape. */
async function decode(
  contentType: string,
  body: Buffer,
): Promise<Omit<ReceivedExport, "headers" | "contentType" | "path">> {
  let request: any;
  if (contentType.startsWith("application/json")) request = JSON.parse(body.toString("utf8"));
  else {
    const type = await exportRequestType();
    request = type.toObject(type.decode(body), { longs: String, defaults: false });
  }
  const spans: ReceivedSpan[] = [];
  let resource: Record<string, string | number | boolean> = {};
  for (const resourceSpans of request.resourceSpans ?? []) {
    resource = plainAttributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? [])
      for (const span of scopeSpans.spans ?? [])
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          traceState: span.traceState ?? "",
          name: span.name,
          kind: Number(span.kind ?? 0),
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: plainAttributes(span.attributes),
          status: { code: Number(span.status?.code ?? 0), message: span.status?.message ?? "" },
        });
  }
  return { resource, spans, metrics: [] };
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  let hanging = false;
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const contentType = String(req.headers["content-type"] ?? "");
      const path = req.url ?? "/";
      // For tests in workerd, which cannot read this process's memory: what it received, as JSON.
      if (req.method === "GET" && path === "/received") {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(exports, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value)));
        return;
      }
      try {
        const body = Buffer.concat(chunks);
        const decoded = path.endsWith("/v1/metrics")
          ? await decodeMetrics(contentType, body)
          : await decode(contentType, body);
        exports.push({ path, contentType, headers: req.headers, ...decoded });
      } catch (error) {
        res.writeHead(400).end(String(error));
        return;
      }
      if (hanging) held.push(res);
      else res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    metricsUrl: `http://127.0.0.1:${port}/v1/metrics`,
    exports,
    spans: () => exports.flatMap((received) => received.spans),
    hang(on) {
      hanging = on;
      if (!on) for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end("{}");
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
