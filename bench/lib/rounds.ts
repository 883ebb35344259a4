import type { Result } from "autocannon";
import { loadavg } from "node:os";
import { assertClean, checkTarget, loadTarget, type Target } from "./http-targets";
import { treeCpuMs } from "./process-cpu";
import type { DevServer } from "./wrangler-dev";

/**
 * A route under load and what its rounds measured: autocannon's results, CPU µs per request
 * of its server's process tree.
 */
export interface Measured {
  target: Target;
  server: DevServer;
  results: Result[];
  cpuUs: number[];
}

/**
 * Checks every target's answer, warms each up, then loads them one after another for `seconds`,
 * `rounds` times, in order and in reverse every other round, so background load hits all alike.
 * Answers the load averages at the start of each round and at the end.
 */
export async function alternateRounds(
  measured: Measured[],
  rounds: number,
  seconds: number,
  connections: number,
): Promise<number[]> {
  for (const m of measured) await checkTarget(m.target);
  for (const m of measured) assertClean(m.target, await loadTarget(m.target, 2, connections)); // warm up
  const loads: number[] = [];
  for (let round = 0; round < rounds; round++) {
    loads.push(loadavg()[0]!);
    for (const m of round % 2 === 0 ? measured : [...measured].reverse()) {
      const before = treeCpuMs(m.server.process.pid!);
      const result = await loadTarget(m.target, seconds, connections);
      const cpuMs = treeCpuMs(m.server.process.pid!) - before;
      assertClean(m.target, result);
      m.results.push(result);
      m.cpuUs.push((cpuMs * 1000) / result.requests.total);
    }
  }
  loads.push(loadavg()[0]!);
  return loads;
}
