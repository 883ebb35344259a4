/**
 * What a live change of the ledger's shard count costs a call, over HTTP against `wrangler dev`
 * (workerd, real Durable Objects, real sockets). The demo tenant (4 shards) is changed to 8 before its
 * first call. While version 1 is live, a call whose id's shard under 4 differs from its shard under 8
 * pays one extra read (does the old shard hold the id?); an id whose shard is the same under both
 * pays none. Both kinds are sent to the same server in the same run, alternating, one at a time, each
 * with a new id: `echo` calls (read-only: one commit before the answer). Then version 1 is dropped
 * (it holds no record) and the same rounds run again, where neither kind looks anywhere else.
 *   p50 added = p50(moving ids) − p50(staying ids).
 * Run: node scripts/run-ts.mjs bench/shard-map.ts   (CALLS per kind and phase, default 200)
 */
import { DEMO_KEYS } from "../worker/demo/tenant";
import { shardOf } from "../worker/ledger/shard-map";
import { startDevServer, type DevServer } from "../test/servers/wrangler-dev";

const CALLS = Number(process.env.CALLS ?? 200);
const WARMUP = 200;
const FROM = 4;
const TO = 8;
const callHeaders = { authorization: `Bearer ${DEMO_KEYS.call}`, "content-type": "application/json" };
const adminHeaders = { authorization: `Bearer ${DEMO_KEYS.admin}`, "content-type": "application/json" };
let seq = 0;

/** A new id whose shard moves between FROM and TO shards (or stays, with moving false). */
function newId(moving: boolean): string {
  for (;;) {
    const id = `shard-bench-${process.pid}-${++seq}`;
    if ((shardOf(id, FROM) !== shardOf(id, TO)) === moving) return id;
  }
}

/** One echo call; answers its wall time in ms. */
async function timedCall(server: DevServer, id: string): Promise<number> {
  const body = [{ id, type: "function", function: { name: "echo", arguments: JSON.stringify({ text: id }) } }];
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/calls/openai`, {
    method: "POST",
    headers: callHeaders,
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { calls?: { status: string }[] };
  const ms = performance.now() - started;
  if (answer.calls?.[0]?.status !== "succeeded")
    throw new Error(`call answered ${res.status}: ${JSON.stringify(answer)}`);
  return ms;
}

async function shardsRoute(server: DevServer, path: string, method: string, body?: unknown): Promise<any> {
  const init = { method, headers: adminHeaders, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
  const res = await fetch(`${server.url}/v1/ledger/shards${path}`, init);
  if (!res.ok) throw new Error(`${method} /v1/ledger/shards${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CALLS calls of each kind, alternating; answers both p50s. */
async function phase(server: DevServer): Promise<{ moving: number; staying: number }> {
  const times = { moving: [] as number[], staying: [] as number[] };
  for (let i = 0; i < CALLS; i++) {
    // Which kind goes first alternates too.
    for (const moving of i % 2 === 0 ? [true, false] : [false, true])
      times[moving ? "moving" : "staying"].push(await timedCall(server, newId(moving)));
  }
  return { moving: p50(times.moving), staying: p50(times.staying) };
}

const server = await startDevServer();
try {
  const changed = await shardsRoute(server, "", "PUT", { shards: TO });
  console.log(`map: ${JSON.stringify(changed.versions)}`);
  for (let i = 0; i < WARMUP; i++) await timedCall(server, newId(i % 2 === 0));
  const live = await phase(server);
  const dropped = await shardsRoute(server, "/drop", "POST");
  console.log(`after drop: ${JSON.stringify(dropped.versions)} (dropped ${JSON.stringify(dropped.dropped)})`);
  const after = await phase(server);
  const line = (name: string, r: { moving: number; staying: number }) =>
    `${name.padEnd(26)} moving ids p50 ${r.moving.toFixed(1)} ms   staying ids p50 ${r.staying.toFixed(1)} ms   added ${(r.moving - r.staying).toFixed(1)} ms`;
  console.log(`echo calls, ${CALLS} per kind and phase, one at a time, alternating (wrangler dev on ${server.url})`);
  console.log(line(`version 1 live (${FROM} → ${TO})`, live));
  console.log(line("version 1 dropped", after));
} finally {
  await server.stop();
}
