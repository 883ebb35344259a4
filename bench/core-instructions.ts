/**
 * Instructions per operation of bench/core.ts's ops (the three floors and toolgate's two entries, W1–W3) under
 * callgrind: `node --predictable --single-threaded` (no concurrent compiler or GC threads), so the counts
 * repeat from run to run whatever else the machine is doing. Each candidate runs in its own process
 * at two operation counts; (I(n2) − I(n1)) / (n2 − n1) leaves out startup and warm-up.
 *
 *   node scripts/run-ts.mjs bench/core-instructions.ts          (needs valgrind; about 4 minutes)
 *   N1=4000 N2=24000 node scripts/run-ts.mjs bench/core-instructions.ts
 */
import { spawnSync } from "node:child_process";
import { check, CORE_WORKLOADS } from "./core";
import { table } from "./harness";

const CANDIDATES = ["floor", "recordFloor", "awaitedFloor", "run", "awaitedRun"] as const;
type Candidate = (typeof CANDIDATES)[number];
const LABELS: Record<Candidate, string> = {
  floor: "floor",
  recordFloor: "floor + record",
  awaitedFloor: "… awaited",
  run: "toolgate",
  awaitedRun: "toolgate, awaited",
};

async function runOps(candidate: Candidate, workload: number, count: number): Promise<void> {
  await check();
  const op = CORE_WORKLOADS[workload]![candidate]!;
  for (let i = 0; i < count; i++) {
    const value: unknown = op();
    if (value instanceof Promise) await value;
  }
}

function instructions(candidate: Candidate, workload: number, count: number): number {
  const args = [
    "--tool=callgrind",
    "--callgrind-out-file=/dev/null",
    process.execPath,
    "--predictable",
    "--single-threaded",
  ];
  const run = spawnSync("valgrind", [...args, process.argv[1]!, "one", candidate, String(workload), String(count)], {
    encoding: "utf8",
  });
  const collected = /Collected : (\d+)/.exec(run.stderr ?? "");
  if (run.status !== 0 || !collected)
    throw new Error(`callgrind failed (is valgrind installed?): ${run.error ?? run.stderr?.slice(-500)}`);
  return Number(collected[1]);
}

const [mode, candidate, workload, count] = process.argv.slice(2);
if (mode === "one") {
  await runOps(candidate as Candidate, Number(workload), Number(count));
} else {
  const n1 = Number(process.env.N1 ?? 4000);
  const n2 = Number(process.env.N2 ?? 24000);
  const rows: Array<Record<string, string>> = [];
  CORE_WORKLOADS.forEach((w, index) => {
    // The batch does 100 calls per operation: fewer operations for the same work.
    const [a, b] = w.name.startsWith("W2") ? [n1 / 50, n2 / 50] : [n1, n2];
    // A workload without an awaited entry of its own (the batch) has its run stand for it.
    const measured = CANDIDATES.filter((c) => w[c] !== undefined);
    const per = Object.fromEntries(
      measured.map((c) => [c, (instructions(c, index, b) - instructions(c, index, a)) / (b - a)]),
    ) as Record<Candidate, number>;
    const row: Record<string, string> = { workload: w.name };
    for (const c of CANDIDATES) row[LABELS[c]] = c in per ? Math.round(per[c]).toLocaleString("en") : "—";
    row["÷ floor"] = `${(per.run / per.floor).toFixed(2)}×`;
    row["÷ floor + record"] = `${(per.run / per.recordFloor).toFixed(2)}×`;
    row["awaited ÷ … awaited"] = `${((per.awaitedRun ?? per.run) / per.awaitedFloor).toFixed(2)}×`;
    rows.push(row);
  });
  console.log(table(rows));
}
