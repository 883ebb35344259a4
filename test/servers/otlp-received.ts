// What the OTLP receiver (otlp-receiver.ts) decodes, apart from it: workerd tests read it over HTTP.

/** A metric data point as the receiver decoded it, from either encoding (a number's, or a histogram's). */
export interface ReceivedPoint {
  attributes: Record<string, string | number | boolean>;
  startNs: string;
  timeNs: string;
  value?: number;
  count?: number;
  sum?: number;
  max?: number;
  bucketCounts?: number[];
  bounds?: number[];
}

/** A metric as decoded: its kind (sum, gauge, histogram), temporality (1 delta) and points. */
export interface ReceivedMetric {
  name: string;
  unit: string;
  kind: "sum" | "gauge" | "histogram";
  temporality: number;
  monotonic: boolean;
  points: ReceivedPoint[];
}
