/**
 * Two builds of toolgate, A and B (git refs), under `wrangler dev` in the same run: the HTTP call route
 * (one `add` call per request through POST /v1/calls/openai) and the floor (GET /healthz), in
 * alternating rounds so background load hits both alike. Reports medians of requests/s and of CPU
 * time per request (/proc, the whole wrangler dev process tree), and B ÷ A: how a change moved the
 * hot path, within the noise of this machine.
 * Run: node scripts/run-ts.mjs bench/ab-http.ts <ref A> [ref B = the working tree]   (ROUNDS, SECONDS, CONNECTIONS)
 */
import { resolve } from "node:path";
import { toolgateFloorTarget, toolgateOpenAiTarget } from "./lib/http-targets";
import { median } from "./lib/load";
import { alternateRounds, type Measured } from "./lib/rounds";
import { snapshotOf } from "./lib/git-snapshot";
import { snapshot, startDev, stopDev, waitReady, type DevServer } from "./lib/wrangler-dev";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const dir = resolve(".tmp/bench-ab-http");
const [refA, refB] = process.argv.slice(2);
if (!refA) {
  console.error("usage: node scripts/run-ts.mjs bench/ab-http.ts <ref A> [ref B]");
  process.exit(2);
}

/** The sources of a git ref, as wrangler dev builds them (its own wrangler.toml and bindings). */
const checkout = (ref: string, name: string) => snapshotOf(ref, resolve(dir, name));

interface Side {
  label: string;
  server: DevServer;
  targets: Measured[];
}

async function main(): Promise<void> {
  const appA = checkout(refA!, "a");
  const appB = refB ? checkout(refB, "b") : snapshot(resolve(dir, "b"));
  const sides: Side[] = [];
  for (const [label, app] of [
    [refA!, appA],
    [refB ?? "working tree", appB],
  ] as const) {
    const server = await startDev({ app, home: resolve(dir, `${sides.length}-home`) });
    sides.push({
      label,
      server,
      targets: [
        toolgateFloorTarget("GET /healthz", server.url),
        toolgateOpenAiTarget("POST /v1/calls/openai (add)", server.url),
      ].map((target) => ({ target, server, results: [], cpuUs: [] })),
    });
  }
  try {
    for (const side of sides) await waitReady(side.server);
    await alternateRounds(
      sides.flatMap((side) => side.targets),
      ROUNDS,
      SECONDS,
      CONNECTIONS,
    );
  } finally {
    for (const side of sides) await stopDev(side.server);
  }
  const rps = (t: Side["targets"][number]) => median(t.results.map((r) => r.requests.average));
  const cpu = (t: Side["targets"][number]) => median(t.cpuUs);
  console.log(`${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections; medians`);
  for (let i = 0; i < sides[0]!.targets.length; i++) {
    const [a, b] = [sides[0]!.targets[i]!, sides[1]!.targets[i]!];
    console.log(
      `${a.target.name.padEnd(30)} A ${rps(a).toFixed(0).padStart(5)} req/s ${cpu(a).toFixed(0).padStart(6)} µs CPU/req   ` +
        `B ${rps(b).toFixed(0).padStart(5)} req/s ${cpu(b).toFixed(0).padStart(6)} µs CPU/req   B÷A req/s ${(rps(b) / rps(a)).toFixed(3)}, CPU/req ${(cpu(b) / cpu(a)).toFixed(3)}`,
    );
  }
  console.log(`A = ${sides[0]!.label}, B = ${sides[1]!.label}`);
}

await main();
