import type { CallEntry } from "../../src/contract";
import type { CallRecord } from "../../src/result";
import { svg } from "./charts";

/** One bar of the waterfall: what the call was doing from `start` to `end` (ms since the epoch). */
interface Segment {
  label: string;
  /** Its bar's class: a wait, a run, a failed attempt, upstream requests. */
  kind: "wait" | "run" | "bad" | "upstream";
  start: number;
  end: number;
}

const WIDTH = 600;
const LABEL = 170;
const ROW = 22;

const duration = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

/**
 * What the record tells of where a call's time went: the wait for its approval (from when the call was
 * first accepted to the decision), the wait for its gate's slot (record.gate), and its run: each attempt
 * and its upstream requests when the record has steps (a retried call, upstream requests), else one bar.
 */
export function segmentsOf(record: CallRecord, entry?: Omit<CallEntry, "record">): Segment[] {
  const segments: Segment[] = [];
  const decided = entry?.approval?.decidedAt;
  if (entry?.approval && decided !== undefined && entry.createdAt <= decided)
    segments.push({ label: "Approval wait", kind: "wait", start: entry.createdAt, end: decided });
  if (record.status === "pending" || record.status === "awaiting_input") return segments;
  const gateWait = Math.min(record.gate?.waitedMs ?? 0, record.durationMs);
  if (record.gate)
    segments.push({
      label: `Gate wait (${record.gate.name})`,
      kind: "wait",
      start: record.startedAt,
      end: record.startedAt + gateWait,
    });
  if (record.steps?.length) return [...segments, ...stepSegments(record)];
  const attempts = record.attempts === 1 ? "1 attempt" : `${record.attempts} attempts`;
  segments.push({
    label: `Run, ${attempts}`,
    kind: "run",
    start: record.startedAt + gateWait,
    end: record.startedAt + record.durationMs,
  });
  return segments;
}

const requests = (n: number) => (n === 1 ? "1 request" : `${n} requests`);

/** Each attempt of the record's steps, and its upstream requests' span under it. */
function stepSegments(record: CallRecord): Segment[] {
  const at = record.startedAt;
  return record.steps!.flatMap((step) => {
    const start = at + step.startMs;
    const attempt: Segment = {
      label: step.error ? `Attempt ${step.attempt}: ${step.error}` : `Attempt ${step.attempt}`,
      kind: step.error ? "bad" : "run",
      start,
      end: start + step.durationMs,
    };
    const { upstream } = step;
    if (!upstream) return [attempt];
    const from = at + upstream.startMs;
    const label = `Upstream, ${requests(upstream.requests)}`;
    return [attempt, { label, kind: "upstream" as const, start: from, end: from + upstream.durationMs }];
  });
}

/** The call's timeline as bars on one time axis (an image named with every segment), or null. */
export function waterfall(record: CallRecord, entry?: Omit<CallEntry, "record">): SVGSVGElement | null {
  const segments = segmentsOf(record, entry);
  if (segments.length < 2) return null;
  const from = Math.min(...segments.map((s) => s.start));
  const to = Math.max(...segments.map((s) => s.end));
  const span = Math.max(1, to - from);
  const label = `Waterfall: ${segments.map((s) => `${s.label.toLowerCase()} ${duration(s.end - s.start)}`).join(", ")}`;
  const height = segments.length * ROW + 4;
  const root = svg("svg", {
    class: "chart waterfall",
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: "img",
    "aria-label": label,
  });
  root.append(svg("title", {}, label));
  const room = WIDTH - LABEL - 70;
  segments.forEach((segment, i) => {
    const y = i * ROW + 4;
    const x = LABEL + ((segment.start - from) / span) * room;
    const width = Math.max(2, ((segment.end - segment.start) / span) * room);
    root.append(
      svg("text", { class: "tick", x: 4, y: y + 14 }, segment.label),
      svg("rect", { class: `bar ${segment.kind}`, x, y, width, height: ROW - 6 }),
      svg("text", { class: "tick", x: x + width + 4, y: y + 14 }, duration(segment.end - segment.start)),
    );
  });
  return root;
}
