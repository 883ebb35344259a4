/**
 * What the load run checks once the traffic stops: every call has exactly one terminal record (read
 * back through GET /v1/calls paging), approvals ended as decided, no gate holds a slot or a waiter
 * (GET /v1/gates), and the sleep tools never ran more at once than their limits.
 */
import { TERMINAL_STATUSES } from "../src/result";
import { DEMO_KEYS } from "../worker/demo/tenant";
import { api, type RunStats, type SentCall } from "./load-client";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

async function readJson(res: Response, what: string): Promise<any> {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return res.json();
}

/** Every record whose call id starts with the tag, all pages of GET /v1/calls. */
export async function recordsOf(base: string, tag: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await readJson(
      await api(base, `/v1/calls?limit=200${cursor ? `&cursor=${cursor}` : ""}`),
      "GET /v1/calls",
    );
    for (const entry of page.calls) if (String(entry.record.callId).startsWith(`${tag}-`)) out.push(entry.record);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** Waits (bounded) until the approved calls, which run after their decision, are terminal. */
export async function settle(base: string, ids: string[], boundMs: number): Promise<void> {
  const until = Date.now() + boundMs;
  for (const id of ids) {
    while (Date.now() < until) {
      const entry = await readJson(await api(base, `/v1/calls/${id}?wait=10`), `GET /v1/calls/${id}`);
      if (TERMINAL.has(entry.record.status)) break;
    }
  }
}

const isHeld = (gate: { holders: unknown[]; queueDepth: number }) => gate.holders.length > 0 || gate.queueDepth > 0;

/**
 * GET /v1/gates once no gate holds a slot or a waiter, or as it is after boundMs. A call's release
 * lands just after its answer (the Worker sends it under waitUntil), so the last calls' slots may
 * still be held when the traffic stops. The bound is far below a sleep's lease, so a slot that was
 * never released is still held when it ends.
 */
async function gatesAtRest(base: string, boundMs: number): Promise<any[]> {
  const until = Date.now() + boundMs;
  for (;;) {
    const { gates } = await readJson(await api(base, "/v1/gates", { key: DEMO_KEYS.admin }), "GET /v1/gates");
    if (!(gates as any[]).some(isHeld) || Date.now() > until) return gates;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Most intervals open at once; an interval ending at the instant another starts does not overlap it. */
export function maxOverlap(intervals: { startedAt: number; endedAt: number }[]): number {
  const edges = intervals.flatMap(({ startedAt, endedAt }) => [
    [startedAt, 1],
    [endedAt, -1],
  ]);
  edges.sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
  let open = 0;
  let max = 0;
  for (const [, step] of edges) max = Math.max(max, (open += step!));
  return max;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const check = (name: string, ok: boolean, detail: string): Check => ({ name, ok, detail });
const sample = (items: string[]) =>
  items.length === 0
    ? ""
    : `: ${items.slice(0, 3).join("; ")}${items.length > 3 ? ` (+${items.length - 3} more)` : ""}`;

/**
 * Appends each check to `checks` as it is made (so a failure midway keeps the earlier ones); answers the run's records.
 */
export async function runChecks(
  base: string,
  tag: string,
  stats: RunStats,
  limits: Record<string, number>,
  checks: Check[],
): Promise<any[]> {
  const sent = stats.calls.map((c) => c.call);
  checks.push(
    check(
      "every request answered 200",
      stats.requestErrors.length === 0,
      `${stats.latencies.length} requests${sample(stats.requestErrors)}`,
    ),
  );
  const wrong = stats.calls.filter((c) => c.problem).map((c) => `${c.call.id}: ${c.problem}`);
  checks.push(
    check(
      "every call answered as expected",
      wrong.length === 0,
      `${stats.calls.length - wrong.length}/${stats.calls.length} right${sample(wrong)}`,
    ),
  );
  const decided = sent.filter((c) => c.decision);
  checks.push(
    check(
      "every approval decision accepted",
      stats.decisionErrors.length === 0,
      `${decided.length} decisions${sample(stats.decisionErrors)}`,
    ),
  );

  await settle(
    base,
    decided.filter((c) => c.decision === "approve").map((c) => c.id),
    60_000,
  );
  const records = await recordsOf(base, tag);
  const byId = new Map<string, any[]>();
  for (const record of records) byId.set(record.callId, [...(byId.get(record.callId) ?? []), record]);
  const missing = sent.filter((c) => !byId.has(c.id)).map((c) => c.id);
  const doubled = [...byId].filter(([, list]) => list.length > 1).map(([id]) => id);
  const odd = [...missing.map((id) => `missing ${id}`), ...doubled.map((id) => `twice ${id}`)];
  checks.push(
    check(
      "one record per call",
      missing.length === 0 && doubled.length === 0 && byId.size === sent.length,
      `${records.length} records for ${sent.length} calls${sample(odd)}`,
    ),
  );
  const open = records.filter((r) => !TERMINAL.has(r.status)).map((r) => `${r.callId} ${r.status}`);
  checks.push(
    check(
      "every record terminal",
      open.length === 0,
      `${records.length - open.length}/${records.length} terminal${sample(open)}`,
    ),
  );
  const want = (c: SentCall) => (c.decision === "approve" ? "succeeded" : "denied");
  const offDecision = decided
    .filter((c) => byId.get(c.id)?.[0]?.status !== want(c))
    .map((c) => `${c.id} ${c.decision}d but ${byId.get(c.id)?.[0]?.status}`);
  checks.push(
    check(
      "approved calls ran, denied calls did not",
      offDecision.length === 0,
      `${decided.length - offDecision.length}/${decided.length} as decided${sample(offDecision)}`,
    ),
  );

  const gates = await gatesAtRest(base, 10_000);
  const held = gates.filter(isHeld).map((g) => `${g.gate}: ${g.holders.length} held, ${g.queueDepth} queued`);
  checks.push(check("no gate slot held", held.length === 0, `${gates.length} gates${sample(held)}`));

  for (const [tool, limit] of Object.entries(limits)) {
    const intervals = records
      .filter((r) => r.tool === tool && r.status === "succeeded")
      .map((r) => r.output.structured);
    const max = maxOverlap(intervals);
    checks.push(
      check(
        `${tool} never above its limit of ${limit}`,
        max <= limit,
        `max ${max} at once over ${intervals.length} calls`,
      ),
    );
  }
  return records;
}
