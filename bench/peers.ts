/**
 * toolgate against peer tool runtimes, in-process, same run, same workload (bench/peers/workload.ts):
 * W1 one OpenAI-format add call, W2 a batch of 100, W3 invalid arguments. Every runtime's answer is
 * checked before it is timed; a runtime that fails to set up or answers wrongly is listed with why.
 * Prints ns per call (W2: per batch of 100) and ratios to the floor and to toolgate.
 * Run: node scripts/run-ts.mjs bench/peers.ts   (PEER_ROUNDS=n timed rounds; PEERS=a,b to measure only those,
 * floor and toolgate always included)
 */
import { fmt, table } from "./harness";
import { aiSdk, aiSdkTool } from "./peers/ai-sdk";
import { floor } from "./peers/floor";
import { langchainTool, langgraphToolNode } from "./peers/langchain";
import { mcpHandler, mcpRoundTrip } from "./peers/mcp";
import { openaiAgents } from "./peers/openai-agents";
import { isMain } from "./peers/is-main";
import { interleave } from "./peers/rounds";
import { toolgate } from "./peers/toolgate";
import { checkAnswer, WORKLOADS, type Peer, type Runner } from "./peers/workload";

export const PEERS: Peer[] = [
  floor,
  toolgate,
  mcpHandler,
  mcpRoundTrip,
  aiSdk,
  aiSdkTool,
  openaiAgents,
  langchainTool,
  langgraphToolNode,
];

export interface PeerReport {
  rows: Array<Record<string, string | number>>;
  notes: string[];
  /** Workloads where toolgate is not the fastest runtime or above its target ratio to the floor. */
  misses: string[];
}

const TARGET = { W1: 1.5, W2: 2, W3: 1.5 } as const;

async function ready(peer: Peer): Promise<{ runner?: Runner; failure?: string }> {
  let runner: Runner | undefined;
  try {
    runner = await peer.setup();
    for (const w of WORKLOADS) checkAnswer(w.message, await runner.run(w.message));
    return { runner };
  } catch (error) {
    await runner?.close?.().catch(() => {});
    return { failure: error instanceof Error ? error.message.split("\n")[0]! : String(error) };
  }
}

export async function runPeerBench(options: { rounds?: number } = {}): Promise<PeerReport> {
  const rounds = options.rounds ?? Number(process.env.PEER_ROUNDS ?? 11);
  const live: Array<{ peer: Peer; runner: Runner }> = [];
  const notes: string[] = [];
  const only = process.env.PEERS?.split(",");
  for (const peer of PEERS.filter((p) => !only || only.includes(p.name) || p === floor || p === toolgate)) {
    const { runner, failure } = await ready(peer);
    if (runner) live.push({ peer, runner });
    else notes.push(`${peer.name}: not measured — ${failure}`);
  }
  const ns = new Map<string, Record<string, number>>(live.map(({ peer }) => [peer.name, {}]));
  const spreads: string[] = [];
  for (const w of WORKLOADS) {
    const timed = await interleave(
      live.map(({ peer, runner }) => ({ name: peer.name, op: () => runner.run(w.message) })),
      { rounds },
    );
    for (const t of timed) {
      ns.get(t.name)![w.key] = t.nsPerOp;
      if (t.spread > 0.2) spreads.push(`${w.key} ${t.name} ${Math.round(t.spread * 100)}%`);
    }
  }
  for (const { runner } of live) await runner.close?.();

  const base = (name: string, key: string) => ns.get(name)?.[key] ?? NaN;
  const ratio = (x: number, y: number) => (Number.isFinite(x / y) ? `${(x / y).toFixed(2)}×` : "—");
  const rows = live.map(({ peer }) => {
    const row: Record<string, string | number> = { runtime: peer.name };
    for (const w of WORKLOADS) {
      const t = base(peer.name, w.key);
      row[w.key] = fmt(t);
      row[`${w.key}/floor`] = ratio(t, base("floor", w.key));
      row[`${w.key}/toolgate`] = ratio(t, base("toolgate", w.key));
    }
    return row;
  });
  const misses: string[] = [];
  for (const w of WORKLOADS) {
    const mine = base("toolgate", w.key);
    const faster = live.filter(
      ({ peer }) => peer.name !== "floor" && peer.name !== "toolgate" && base(peer.name, w.key) <= mine,
    );
    if (faster.length) misses.push(`${w.key}: slower than ${faster.map(({ peer }) => peer.name).join(", ")}`);
    const toFloor = mine / base("floor", w.key);
    if (toFloor > TARGET[w.key]) misses.push(`${w.key}: ${toFloor.toFixed(2)}× the floor (target ≤ ${TARGET[w.key]}×)`);
  }
  notes.unshift(...live.map(({ peer }) => `${peer.name}: ${peer.path}`));
  if (spreads.length) notes.push(`noisy (interquartile range ÷ median over rounds > 20%): ${spreads.join(", ")}`);
  return { rows, notes, misses };
}

export function printPeerReport(report: PeerReport): void {
  console.log("W1/W3: per call; W2: per batch of 100 calls. Ratios: time ÷ the floor's, time ÷ toolgate's.");
  console.log(table(report.rows));
  for (const note of report.notes) console.log(`  ${note}`);
  console.log(
    report.misses.length
      ? `toolgate misses: ${report.misses.join("; ")}`
      : "toolgate: fastest runtime on W1–W3 and within its floor targets",
  );
}

if (isMain("peers")) {
  printPeerReport(await runPeerBench());
}
