import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { executeBatch } from "../../../src/pipeline/batch";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { eventually } from "../../wait";
import { untilDeadline, waitersOn } from "../helpers/durable-state";
import { claim, countingTool, journal, rawShardOfCall, record, shardOfCall, tune, uid } from "../helpers/ledger";

const call = (id: string, text: string, name = "echo") => ({ id, name, arguments: JSON.stringify({ text }) });

describe("idempotency by call id", () => {
  it("replays a finished call without running the tool again", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool();
    const options = { registry: createRegistry([tool]), tenant, journal: journal(tenant) };
    const first = await executeCall(call("c1", "hello"), options);
    expect(first.ok && first.output.content).toEqual([{ type: "text", text: "echo hello" }]);
    expect(first.record.replay).toBeUndefined();

    const again = await executeCall(call("c1", "hello"), { ...options, journal: journal(tenant) });
    expect(again.ok).toBe(true);
    expect(again.record.replay).toBe(true);
    expect(again.ok && again.output.content).toEqual([{ type: "text", text: "echo hello" }]);
    expect(state.runs).toBe(1);
  });

  it("replays failures too, and answers conflict for other arguments under the same id", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool("echo", { timeoutMs: 30 });
    const options = { registry: createRegistry([tool]), tenant, journal: journal(tenant) };
    const timedOut = await executeCall(call("c2", "wait"), options);
    expect(!timedOut.ok && timedOut.error.code).toBe("timeout");
    const replayed = await executeCall(call("c2", "wait"), options);
    expect(!replayed.ok && replayed.error.code).toBe("timeout");
    expect(replayed.record.replay).toBe(true);

    const other = await executeCall(call("c2", "something else"), options);
    expect(!other.ok && other.error.code).toBe("conflict");
    expect(!other.ok && other.error.message).toContain("already used");
    expect(state.runs).toBe(1);
    // The conflicting call left the stored record alone.
    const entry = await shardOfCall(tenant, "c2").get("c2", null);
    expect(entry?.record.status).toBe("timed_out");
  });

  it("runs concurrent duplicates once; the others wait for and return that outcome", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool();
    const registry = createRegistry([tool]);
    // No watch long-poll (it would wait on the shard too): the shard's waiters are the duplicates alone.
    const runs = Array.from({ length: 5 }, () =>
      executeCall(call("dup", "wait-a-bit"), { registry, tenant, journal: journal(tenant, { watchDelayMs: 60_000 }) }),
    );
    await eventually(() => state.release !== undefined, "one of them runs the tool");
    await eventually(
      async () => (await waitersOn(rawShardOfCall(tenant, "dup"), "dup")) === 4,
      "the four others wait for it in the shard",
    );
    state.release!();
    const results = await Promise.all(runs);
    expect(state.runs).toBe(1);
    expect(results.every((result) => result.ok)).toBe(true);
    expect(results.filter((result) => result.record.replay).length).toBe(4);
  });

  it("runs the same id twice in one batch once", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool();
    const results = await executeBatch([call("twice", "x"), call("twice", "x")], {
      registry: createRegistry([tool]),
      tenant,
      journal: journal(tenant),
    });
    expect(state.runs).toBe(1);
    expect(results.map((result) => [result.ok, result.record.replay ?? false])).toEqual([
      [true, false],
      [true, true],
    ]);
  });

  it("keeps records and idempotency across eviction", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool();
    const registry = createRegistry([tool]);
    await executeCall(call("ev", "persist me"), { registry, tenant, journal: journal(tenant) });
    await evictDurableObject(rawShardOfCall(tenant, "ev"));
    const entry = await shardOfCall(tenant, "ev").get("ev", null);
    expect(entry?.record.status).toBe("succeeded");
    const again = await executeCall(call("ev", "persist me"), { registry, tenant, journal: journal(tenant) });
    expect(again.record.replay).toBe(true);
    expect(state.runs).toBe(1);
  });
});

describe("a call whose runner vanished", () => {
  it("turns unknown after its lease and is never re-run for a non-idempotent tool", async () => {
    const tenant = `t-${uid()}`;
    const stub = shardOfCall(tenant, "lost");
    const begun = await journal(tenant, { leaseMs: 40, watchDelayMs: 60_000 }).begin(claim(tenant, "lost"));
    expect(begun.kind).toBe("new");
    await untilDeadline(rawShardOfCall(tenant, "lost"), "lost");
    // Only the shard's alarm ends a lease; it may already have run on its own: either way, once.
    await runDurableObjectAlarm(rawShardOfCall(tenant, "lost"));
    const entry = await stub.get("lost", null);
    expect(entry?.record.status).toBe("unknown");
    expect(entry?.record.error?.message).toContain("not run again");

    const retry = await journal(tenant).begin(claim(tenant, "lost"));
    expect(retry.kind === "replay" && retry.record.status).toBe("unknown");
  });

  it("lets an idempotent tool run again under the same id", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool("echo", { idempotent: true });
    const registry = createRegistry([tool]);
    await journal(tenant, { leaseMs: 30, watchDelayMs: 60_000 }).begin(
      claim(tenant, "idem", { policy: { idempotent: true }, args: { text: "again" } }),
    );
    await untilDeadline(rawShardOfCall(tenant, "idem"), "idem");
    await runDurableObjectAlarm(rawShardOfCall(tenant, "idem"));
    expect((await shardOfCall(tenant, "idem").get("idem", null))?.record.status).toBe("unknown");
    const rerun = await executeCall(call("idem", "again"), { registry, tenant, journal: journal(tenant) });
    expect(rerun.ok).toBe(true);
    expect(state.runs).toBe(1);
    // One call, counted once: when the alarm guessed unknown, not again when its re-run ended.
    const { rows } = await shardOfCall(tenant, "idem").metrics(0, Date.now() + 60_000, 60_000);
    const echo = rows.filter((row) => row.kind === "tool" && row.name === "echo");
    expect(echo.reduce((sum, row) => sum + row.calls, 0)).toBe(1);
  });

  it("keeps a long call alive by renewing its lease", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool();
    const registry = createRegistry([tool]);
    const running = executeCall(call("long", "wait"), {
      registry,
      tenant,
      journal: journal(tenant, { leaseMs: 600, watchDelayMs: 0 }),
    });
    await eventually(() => state.release !== undefined, "the tool runs");
    // Past the end of the lease the claim took: only renewals keep the call from the alarm.
    await untilDeadline(rawShardOfCall(tenant, "long"), "long");
    await runDurableObjectAlarm(rawShardOfCall(tenant, "long"));
    expect((await shardOfCall(tenant, "long").get("long", null))?.record.status).toBe("running");
    state.release!();
    expect((await running).ok).toBe(true);
    expect((await shardOfCall(tenant, "long").get("long", null))?.record.status).toBe("succeeded");
  });
});

describe("cancel from anywhere", () => {
  it("aborts a running call through its journal's signal", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool();
    const registry = createRegistry([tool]);
    const running = executeCall(call("cx", "wait"), {
      registry,
      tenant,
      journal: journal(tenant, { watchDelayMs: 0 }),
    });
    await eventually(() => state.release !== undefined, "the tool runs");
    const outcome = await shardOfCall(tenant, "cx").cancel("cx", null);
    expect(outcome.ok && outcome.state).toBe("requested");
    const result = await running;
    expect(!result.ok && result.error.code).toBe("cancelled");
    expect((await shardOfCall(tenant, "cx").get("cx", null))?.record.status).toBe("cancelled");
  });

  it("refuses to cancel a finished call", async () => {
    const tenant = `t-${uid()}`;
    await journal(tenant).finish(record(tenant, "done", "rejected"));
    const outcome = await shardOfCall(tenant, "done").cancel("done", null);
    expect(outcome).toMatchObject({ ok: false, error: "finished" });
  });
});

describe("joining a running duplicate", () => {
  it("answers that it is still running when the wait bound passes", async () => {
    const tenant = `t-${uid()}`;
    const begin = claim(tenant, "slow");
    await journal(tenant, { watchDelayMs: 60_000 }).begin(begin);
    await tune(rawShardOfCall(tenant, "slow"), { maxWaitMs: 30 });
    const second = await journal(tenant).begin(begin);
    expect(second.kind === "conflict" && second.message).toContain("still running");
  });
});
