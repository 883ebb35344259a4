/**
 * The load run's traffic: a seeded mix of calls across the demo tenant's parallel (add, echo),
 * sequential (sleep, limit 1), limited (sleep_pool, limit 3) and approval (send_message) tools,
 * sent by a fixed number of workers in requests of one or two calls, until N calls or T seconds.
 * Every approval call is decided at once by the admin API: even ones approved, odd ones denied.
 */
import { DEMO_KEYS } from "../worker/demo/tenant";

export type ToolName = "add" | "echo" | "sleep" | "sleep_pool" | "send_message";

/** What one call should come back as, checked against its immediate result. */
export interface SentCall {
  id: string;
  tool: ToolName;
  args: Record<string, unknown>;
  /** Approval calls: the decision this run takes. */
  decision?: "approve" | "deny";
}

export interface CallOutcome {
  call: SentCall;
  /** The record the call request answered with (undefined when the request failed). */
  record?: any;
  /** What was wrong with the immediate answer, if anything. */
  problem?: string;
}

export interface RunStats {
  calls: CallOutcome[];
  /** Client-side latency of each request, ms, with the tool of its first call. */
  latencies: { ms: number; tools: ToolName[] }[];
  /** Request-level failures: transport errors, timeouts, non-200 answers. */
  requestErrors: string[];
  decisionErrors: string[];
  elapsedMs: number;
  stoppedByTime: boolean;
}

export interface RunOptions {
  base: string;
  calls: number;
  concurrency: number;
  seconds: number;
  /** Prefix of every call id of this run. */
  tag: string;
  seed: number;
}

/** mulberry32: a small seeded PRNG, so a run's mix can be repeated (and a bench's resamples, bench/lib/paired.ts). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shares of the mix, in twentieths. */
const MIX: [ToolName, number][] = [
  ["add", 7],
  ["echo", 5],
  ["sleep", 2],
  ["sleep_pool", 4],
  ["send_message", 2],
];

function makeCall(random: () => number, id: string, index: number): SentCall {
  let pick = random() * 20;
  const tool = MIX.find(([, share]) => (pick -= share) < 0)?.[0] ?? "add";
  switch (tool) {
    case "add":
      return { id, tool, args: { a: Math.floor(random() * 1000), b: Math.floor(random() * 1000) } };
    case "echo":
      return { id, tool, args: { text: `load ${index} ${"x".repeat(Math.floor(random() * 200))}` } };
    case "sleep":
      return { id, tool, args: { ms: 1 + Math.floor(random() * 3) } };
    case "sleep_pool":
      return { id, tool, args: { ms: 2 + Math.floor(random() * 10) } };
    case "send_message":
      return {
        id,
        tool,
        args: { to: `user${index}`, text: "load test" },
        decision: index % 2 === 0 ? "approve" : "deny",
      };
  }
}

/** The immediate answer a call should get: null when it is right, else what is wrong. */
function problemOf(call: SentCall, record: any): string | null {
  if (!record) return "no record in the answer";
  const want = call.tool === "send_message" ? "pending" : "succeeded";
  if (record.status !== want) {
    const why = record.error ? ` (${record.error.code}: ${record.error.message})` : "";
    return `${call.tool} answered ${record.status}${why}`;
  }
  const out = record.output?.structured;
  if (call.tool === "add" && out?.sum !== (call.args.a as number) + (call.args.b as number))
    return `add answered ${JSON.stringify(out)}`;
  if (call.tool === "echo" && record.output?.content?.[0]?.text !== call.args.text) return "echo answered other text";
  if ((call.tool === "sleep" || call.tool === "sleep_pool") && !(out?.endedAt >= out?.startedAt))
    return `${call.tool} answered no interval`;
  return null;
}

export async function api(
  base: string,
  path: string,
  init: { key?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: init.body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${init.key ?? DEMO_KEYS.call}`,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(init.timeoutMs ?? 60_000),
  });
}

const toolCall = (call: SentCall) => ({
  id: call.id,
  type: "function",
  function: { name: call.tool, arguments: JSON.stringify(call.args) },
});

/** Sends the mix with `concurrency` workers; answers what came back. */
export async function runLoad(options: RunOptions): Promise<RunStats> {
  const random = prng(options.seed);
  const stats: RunStats = {
    calls: [],
    latencies: [],
    requestErrors: [],
    decisionErrors: [],
    elapsedMs: 0,
    stoppedByTime: false,
  };
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  let next = 0;

  const decide = async (call: SentCall) => {
    const body = call.decision === "deny" ? { decision: "deny", reason: "load test" } : { decision: "approve" };
    const res = await api(options.base, `/v1/approvals/${call.id}`, { key: DEMO_KEYS.admin, body });
    const want = call.decision === "deny" ? 200 : 202;
    if (res.status !== want)
      stats.decisionErrors.push(
        `${call.id}: ${call.decision} answered ${res.status} ${(await res.text()).slice(0, 200)}`,
      );
    else await res.arrayBuffer();
  };

  const worker = async () => {
    for (;;) {
      if (performance.now() > deadline) {
        stats.stoppedByTime = next < options.calls;
        return;
      }
      const size = Math.min(options.calls - next, random() < 0.3 ? 2 : 1);
      if (size <= 0) return;
      const batch = Array.from({ length: size }, () => {
        const index = next++;
        return makeCall(random, `${options.tag}-${index}`, index);
      });
      const sent = performance.now();
      let records: any[] | undefined;
      try {
        const res = await api(options.base, "/v1/calls/openai", {
          body: { role: "assistant", content: null, tool_calls: batch.map(toolCall) },
        });
        const text = await res.text();
        if (res.status !== 200) stats.requestErrors.push(`HTTP ${res.status}: ${text.slice(0, 200)}`);
        else records = (JSON.parse(text) as { calls: any[] }).calls;
      } catch (error) {
        stats.requestErrors.push(String(error));
      }
      stats.latencies.push({ ms: performance.now() - sent, tools: batch.map((c) => c.tool) });
      for (const [i, call] of batch.entries()) {
        const record = records?.find((r) => r.callId === call.id) ?? records?.[i];
        const problem = records ? problemOf(call, record) : "the request failed";
        stats.calls.push({ call, ...(record ? { record } : {}), ...(problem ? { problem } : {}) });
        if (call.decision && !problem)
          await decide(call).catch((error) => stats.decisionErrors.push(`${call.id}: ${String(error)}`));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  stats.elapsedMs = performance.now() - started;
  return stats;
}
