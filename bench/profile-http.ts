/**
 * Where the read-only call's CPU goes inside the Worker: a V8 CPU profile of toolgate's isolate (the
 * DevTools Profiler through wrangler dev's inspector) while autocannon sends the `add` call of
 * bench/http.ts (readOnlyRecords "after-answer"); prints the functions with the most self time.
 * The Worker and its Durable Objects share the isolate, so the ledger's side is in it too.
 * Run: INSPECTOR=on node scripts/run-ts.mjs bench/profile-http.ts   (SECONDS, CONNECTIONS, TOP;
 * PROFILE_OUT=<file> also writes the raw profile and the request count, to read against the source
 * map of `npx wrangler deploy --dry-run --env "" --outdir <dir>`, the same minified build).
 * Under the inspector the profile is sampled in wall time and native calls that start asynchronous
 * work (timers, RPC) weigh more than without it: read shares, not absolute costs.
 */
import { resolve } from "node:path";
import { DEMO_CONFIG } from "../worker/demo/tenant";
import { ADD_CALL, checkTarget, loadTarget, toolgateOpenAiTarget } from "./lib/http-targets";
import { writeWranglerConfig } from "./lib/wrangler-config";
import { devtools, type Profile } from "./lib/devtools";
import { INSPECTOR, snapshot, startDev, stopDev, waitReady } from "./lib/wrangler-dev";

const SECONDS = Number(process.env.SECONDS ?? 6);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const TOP = Number(process.env.TOP ?? 40);
const dir = resolve(".tmp/bench-profile-http");
const BENCH_CONFIG = { ...DEMO_CONFIG, policies: { echo: { readOnly: false } }, readOnlyRecords: "after-answer" };

async function main(): Promise<void> {
  if (!INSPECTOR) throw new Error("run with INSPECTOR=on: the profile is taken through wrangler dev's inspector");
  const app = snapshot(dir);
  const config = writeWranglerConfig(app, resolve(dir, "toolgate.json"), {
    TOOLGATE_DEMO: "false",
    TOOLGATE_CONFIG: JSON.stringify(BENCH_CONFIG),
  });
  const server = await startDev({ app, home: resolve(dir, "home"), config });
  try {
    await waitReady(server);
    const target = toolgateOpenAiTarget("add call, read-only", server.url, 1, ADD_CALL);
    await checkTarget(target);
    await loadTarget(target, 2, CONNECTIONS); // warm up
    const session = await devtools(server.inspectorPort!);
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: 100 });
    await session.send("Profiler.start");
    const result = await loadTarget(target, SECONDS, CONNECTIONS);
    const { profile } = await session.send<{ profile: Profile }>("Profiler.stop");
    session.close();
    if (process.env.PROFILE_OUT)
      (await import("node:fs")).writeFileSync(
        process.env.PROFILE_OUT,
        JSON.stringify({ profile, requests: result.requests.total }),
      );
    report(profile, result.requests.total);
  } finally {
    await stopDev(server);
  }
}

/** Self time per function (name and place), in µs per request, and the share of all samples. */
function report(profile: Profile, requests: number): void {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byNode.get(id)!.callFrame;
    const file = frame.url.split("/").pop() ?? "";
    const name = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`;
    const us = profile.timeDeltas[i] ?? 0;
    self.set(name, (self.get(name) ?? 0) + us);
    total += us;
  });
  const idle = [...self].filter(([name]) => name.startsWith("(idle)")).reduce((sum, [, us]) => sum + us, 0);
  console.log(
    `${requests} requests; sampled ${(total / 1000).toFixed(0)} ms, of which idle ${(idle / 1000).toFixed(0)} ms; busy ${((total - idle) / requests).toFixed(0)} µs per request`,
  );
  const rows = [...self]
    .filter(([name]) => !name.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP);
  console.table(
    rows.map(([name, us]) => ({
      function: name,
      "µs/req": (us / requests).toFixed(1),
      share: `${((us / (total - idle)) * 100).toFixed(1)}%`,
    })),
  );
}

await main();
