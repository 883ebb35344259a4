import { jsonAttributes, type SpanSource, unixNano } from "./otlp-json";
import { attributes, ProtoWriter } from "./proto-writer";
import type { SpanAttribute } from "./span";

/**
 * OTLP metrics (opentelemetry/proto/metrics/v1): the few shapes toolgate sends, in either encoding. Every
 * sum and histogram has DELTA temporality: each point counts one interval (a minute of the ledger's
 * rollup), so points from several exporters or a restarted one never have to be reconciled.
 */

/** A point over an interval (a sum's or histogram's) or at an instant (a gauge's: startMs = endMs). */
interface PointBase {
  attributes: Record<string, SpanAttribute>;
  startMs: number;
  endMs: number;
}
export interface NumberPoint extends PointBase {
  value: number;
}
export interface HistogramPoint extends PointBase {
  count: number;
  sum: number;
  max: number;
  /** bounds.length + 1 counts: bucket i holds values in (bounds[i−1], bounds[i]]. */
  bucketCounts: readonly number[];
  bounds: readonly number[];
}

export type OtlpMetric = { name: string; unit: string; description: string } & (
  | { kind: "sum"; points: NumberPoint[] }
  | { kind: "gauge"; points: NumberPoint[] }
  | { kind: "histogram"; points: HistogramPoint[] }
);

const DELTA = 1;

/** An ExportMetricsServiceRequest in OTLP/JSON. */
export function encodeMetricsJson(metrics: readonly OtlpMetric[], source: SpanSource): string {
  return JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: jsonAttributes(source.resource) },
        scopeMetrics: [{ scope: source.scope, metrics: metrics.map(jsonMetric) }],
      },
    ],
  });
}

function jsonMetric(metric: OtlpMetric): Record<string, unknown> {
  const head = { name: metric.name, unit: metric.unit, description: metric.description };
  if (metric.kind === "histogram")
    return {
      ...head,
      histogram: {
        aggregationTemporality: DELTA,
        dataPoints: metric.points.map((p) => ({
          ...jsonTimes(p),
          count: String(p.count),
          sum: p.sum,
          max: p.max,
          bucketCounts: p.bucketCounts.map(String),
          explicitBounds: p.bounds,
        })),
      },
    };
  const dataPoints = metric.points.map((p) => ({ ...jsonTimes(p), asDouble: p.value }));
  return metric.kind === "sum"
    ? { ...head, sum: { aggregationTemporality: DELTA, isMonotonic: true, dataPoints } }
    : { ...head, gauge: { dataPoints } };
}

function jsonTimes(point: PointBase) {
  return {
    attributes: jsonAttributes(point.attributes),
    startTimeUnixNano: unixNano(point.startMs),
    timeUnixNano: unixNano(point.endMs),
  };
}

/** An ExportMetricsServiceRequest in OTLP's protobuf encoding (field numbers from metrics.proto). */
export function encodeMetricsProtobuf(metrics: readonly OtlpMetric[], source: SpanSource): Uint8Array {
  const scope = new ProtoWriter().string(1, source.scope.name);
  if (source.scope.version !== undefined) scope.string(2, source.scope.version);
  const scopeMetrics = new ProtoWriter().message(1, scope);
  for (const metric of metrics) scopeMetrics.message(2, protoMetric(metric));
  const resource = attributes(new ProtoWriter(), 1, source.resource);
  const resourceMetrics = new ProtoWriter().message(1, resource).message(2, scopeMetrics);
  return new ProtoWriter().message(1, resourceMetrics).finish();
}

function protoMetric(metric: OtlpMetric): ProtoWriter {
  const out = new ProtoWriter().string(1, metric.name).string(2, metric.description).string(3, metric.unit);
  if (metric.kind === "histogram") {
    const data = new ProtoWriter();
    for (const p of metric.points) {
      const point = protoTimes(new ProtoWriter(), p, 9).fixed64(4, BigInt(p.count)).double(5, p.sum);
      point.packedFixed64(6, p.bucketCounts).packedDouble(7, p.bounds).double(12, p.max);
      data.message(1, point);
    }
    return out.message(9, data.varint(2, DELTA));
  }
  const data = new ProtoWriter();
  for (const p of metric.points) data.message(1, protoTimes(new ProtoWriter(), p, 7).double(4, p.value));
  return metric.kind === "sum" ? out.message(7, data.varint(2, DELTA).varint(3, 1)) : out.message(5, data);
}

/** A data point's attributes (at its field number) and its start and end times (fields 2 and 3). */
function protoTimes(out: ProtoWriter, point: PointBase, attributesField: number): ProtoWriter {
  attributes(out, attributesField, point.attributes);
  return out.fixed64(2, BigInt(unixNano(point.startMs))).fixed64(3, BigInt(unixNano(point.endMs)));
}
