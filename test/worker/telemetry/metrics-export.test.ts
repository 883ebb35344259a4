import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { MINUTE_MS } from "../../../src/telemetry/histogram";
import type { CallRecord } from "../../../src/result";
import { shardCount, tenantLedger } from "../../../worker/ledger/address";
import type { Ledger } from "../../../worker/ledger/ledger";
import { countFinished } from "../../../worker/ledger/metrics";
import { CALL_KEY_HASH, json, request } from "../helpers/requests";
import { record, uid } from "../helpers/ledger";
import { eventually } from "../../wait";
import type { ReceivedMetric } from "../../servers/otlp-received";

/**
 * A tenant's metrics over OTLP: a request starts the export on the tenant's ledger map object, whose
 * alarm sends the minutes that ended, read from every shard, to a real OTLP receiver on 127.0.0.1 that
 * decodes them with the official definitions (JSON and protobuf).
 */

const otlp = inject("upstreams").otlp;

/** An export as the receiver decoded it (test/servers/otlp-receiver.ts, read over HTTP: it runs in Node). */
interface ReceivedExport {
  path: string;
  contentType: string;
  resource: Record<string, unknown>;
  metrics: ReceivedMetric[];
}
const received = async (tenant: string): Promise<ReceivedExport[]> => {
  const all = (await (await fetch(new URL("/received", otlp.metrics))).json()) as ReceivedExport[];
  return all.filter((e) => e.path === "/v1/metrics" && e.resource["toolgate.tenant"] === tenant);
};

interface ExportState {
  tenant: string;
  config?: string;
  last: number;
  droppedMinutes: number;
}
const STATE = "metrics-export";

function configOf(tenant: string, endpoint: string, protocol = "http/json") {
  return JSON.stringify({
    name: tenant,
    tools: ["add"],
    keys: [{ name: "k", hash: CALL_KEY_HASH, scopes: ["call"] }],
    egress: { allowHttpHosts: ["127.0.0.1"] },
    telemetry: { metrics: { endpoint, protocol, intervalSeconds: 10 } },
  });
}

const ledgerOf = (tenant: string) => tenantLedger(env, tenant);
const holderOf = (tenant: string) => ledgerOf(tenant).holder() as unknown as DurableObjectStub<Ledger>;
const stateOf = (tenant: string) =>
  runInDurableObject(holderOf(tenant), (_ledger, state) => state.storage.get<ExportState>(STATE));

/** Rolls calls up in shard 0 as ending at `at`, with the ledger's own rollup. */
function rollUp(tenant: string, at: number, records: CallRecord[]) {
  const shard = ledgerOf(tenant).shard(0) as unknown as DurableObjectStub<Ledger>;
  return runInDurableObject(shard, (_ledger, state) => {
    for (const r of records) countFinished(state.storage.sql, r, at);
  });
}

/** One call of add through the Worker, as a model's tool call, for the tenant of `config`. */
async function callAdd(config: string) {
  const answer = await request("/v1/calls", {
    env: { TOOLGATE_CONFIG: config },
    body: [{ id: `c_${uid()}`, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
  });
  expect(answer.status).toBe(200);
  expect((await json(answer)).calls[0].status).toBe("succeeded");
}

/** A tenant whose export a real request started (the first export then sends the last minute that ended). */
async function startedTenant(protocol: string, endpoint = otlp.metrics) {
  const tenant = `metrics-${uid()}`;
  const config = configOf(tenant, endpoint, protocol);
  await callAdd(config);
  await eventually(async () => (await stateOf(tenant)) !== undefined, "the export started");
  return { tenant, config };
}

const lastEnded = () => (Math.floor(Date.now() / MINUTE_MS) - 1) * MINUTE_MS;

describe.each(["http/json", "http/protobuf"])("metrics export (%s)", (protocol) => {
  it("sends the tools' and gates' minutes as delta histograms and sums, once", async () => {
    const { tenant } = await startedTenant(protocol);
    const minute = lastEnded();
    await rollUp(tenant, minute + 1_000, [
      record(tenant, "a1", "succeeded", { tool: "add", durationMs: 3, gate: { name: "tool:add", waitedMs: 2 } }),
      record(tenant, "a2", "failed", {
        tool: "add",
        durationMs: 200,
        error: { code: "upstream_error", message: "down" },
      }),
    ]);
    await runDurableObjectAlarm(holderOf(tenant));
    const [sent, ...more] = await received(tenant);
    expect(more).toEqual([]);
    expect(sent!.contentType).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
    const byName = Object.fromEntries(sent!.metrics.map((m) => [m.name, m]));
    const start = String(BigInt(minute) * 1_000_000n);
    const end = String(BigInt(minute + MINUTE_MS) * 1_000_000n);
    expect(byName["toolgate.tool.duration"]).toMatchObject({
      unit: "s",
      kind: "histogram",
      temporality: 1,
      points: [{ attributes: { "gen_ai.tool.name": "add" }, startNs: start, timeNs: end, count: 2, max: 0.2 }],
    });
    const histogram = byName["toolgate.tool.duration"]!.points[0]!;
    expect(histogram.sum).toBeCloseTo(0.203, 6);
    expect(histogram.bucketCounts!.reduce((a, b) => a + b, 0)).toBe(2);
    expect(histogram.bucketCounts).toHaveLength(histogram.bounds!.length + 1);
    expect(byName["toolgate.tool.failures"]).toMatchObject({
      kind: "sum",
      temporality: 1,
      monotonic: true,
      points: [{ attributes: { "gen_ai.tool.name": "add" }, value: 1 }],
    });
    expect(byName["toolgate.tool.errors"]!.points).toMatchObject([
      { attributes: { "gen_ai.tool.name": "add", "error.type": "upstream_error" }, value: 1 },
    ]);
    expect(byName["toolgate.gate.wait"]!.points).toMatchObject([
      { attributes: { "toolgate.gate": "tool:add" }, count: 1, max: 0.002 },
    ]);

    // The next alarm in the same minute has nothing new to send: the minute is never sent twice.
    expect((await stateOf(tenant))!.last).toBe(minute / MINUTE_MS);
    await runDurableObjectAlarm(holderOf(tenant));
    expect(await received(tenant)).toHaveLength(1);
  });
});

describe("metrics export when the collector is down", () => {
  it("keeps the minutes for the next alarm, then sends them once; counts those beyond the catch-up", async () => {
    const { tenant, config } = await startedTenant("http/json");
    const holder = holderOf(tenant);
    const minute = lastEnded();
    // The collector is down: nothing listens on port 9 of loopback.
    const down = configOf(tenant, "http://127.0.0.1:9/v1/metrics");
    await runInDurableObject(holder, (ledger) => ledger.startMetricsExport(tenant, down, shardCount(env), 10_000));
    // 70 minutes not sent yet: the oldest 10 are beyond the 60-minute catch-up.
    await runInDurableObject(holder, async (_ledger, state) => {
      const kept = (await state.storage.get<ExportState>(STATE))!;
      await state.storage.put(STATE, { ...kept, last: minute / MINUTE_MS - 70 });
    });
    await rollUp(tenant, minute + 1_000, [record(tenant, "b1", "succeeded", { tool: "add", durationMs: 5 })]);
    await runDurableObjectAlarm(holder);
    expect(await received(tenant)).toEqual([]);
    expect(await stateOf(tenant)).toMatchObject({ last: minute / MINUTE_MS - 60, droppedMinutes: 10 });

    // The collector is back: the kept minutes go at the next alarm, with the drops counted.
    await runInDurableObject(holder, (ledger) => ledger.startMetricsExport(tenant, config, shardCount(env), 10_000));
    await runDurableObjectAlarm(holder);
    const [sent, ...more] = await received(tenant);
    expect(more).toEqual([]);
    expect(sent!.resource).toMatchObject({ "toolgate.telemetry.dropped_minutes": 10 });
    expect(sent!.metrics.find((m) => m.name === "toolgate.tool.duration")!.points).toMatchObject([{ count: 1 }]);
    expect((await stateOf(tenant))!.last).toBe(minute / MINUTE_MS);
  });

  it("stops once the tenant's configuration has no metrics export", async () => {
    const { tenant } = await startedTenant("http/json");
    const holder = holderOf(tenant);
    const plain = JSON.stringify({ ...JSON.parse(configOf(tenant, otlp.metrics)), telemetry: undefined });
    await runInDurableObject(holder, (ledger) => ledger.startMetricsExport(tenant, plain, shardCount(env), 10_000));
    await runDurableObjectAlarm(holder);
    expect(await stateOf(tenant)).toBeUndefined();
    await callAdd(plain);
  });
});
