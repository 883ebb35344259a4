import { describe, expect, it } from "vitest";
import { executeBatch } from "../../../src/pipeline/batch";
import { createRegistry } from "../../../src/registry";
import type { LedgerWrite, WriteOutcome } from "../../../worker/ledger/types";
import type { LedgerStub } from "../../../worker/ledger/address";
import { submitWrite } from "../../../worker/ledger/writes";
import { eventually, latch, nextTurn } from "../../wait";
import { countingTool, journal, record, shardOfCall, uid } from "../helpers/ledger";

/**
 * Group commit (worker/ledger-writes.ts): a shard's writes from one isolate travel together in one
 * writeMany() round trip to the real Ledger object; the stub here only counts the groups it carries.
 */
function countingStub(
  tenant: string,
  callId: string,
  behaviour: { hangFirst?: boolean; holdFirst?: Promise<void> } = {},
) {
  const groups: number[] = [];
  let hung = false;
  const real = shardOfCall(tenant, callId);
  const stub = (): LedgerStub =>
    ({
      async writeMany(writes: LedgerWrite[]): Promise<WriteOutcome[]> {
        groups.push(writes.length);
        if (behaviour.hangFirst && !hung) {
          hung = true;
          return new Promise(() => undefined); // a sender whose request died: this group never answers
        }
        // The first group stays on its way until the test lets it arrive.
        if (groups.length === 1) await behaviour.holdFirst;
        return real.writeMany(writes);
      },
    }) as unknown as LedgerStub;
  return { stub, groups };
}

const recordWrite = (tenant: string, callId: string): LedgerWrite => ({
  op: "record",
  record: record(tenant, callId, "rejected"),
  key: null,
});

describe("grouped ledger writes", () => {
  it("sends the writes made in one turn as one group, and each gets its own answer", async () => {
    const tenant = `t-${uid()}`;
    const { stub, groups } = countingStub(tenant, "a");
    const shard = `${tenant}/test`;
    const ids = Array.from({ length: 10 }, (_, i) => `g${i}`);
    const outcomes = await Promise.all(ids.map((id) => submitWrite(shard, recordWrite(tenant, id), { stub })));
    expect(groups).toEqual([10]);
    expect(outcomes).toEqual(ids.map(() => ({ kind: "done", ok: true })));
    // Every record landed on the object the stub points at.
    const stored = await shardOfCall(tenant, "a").list({ viewer: null, limit: 50 });
    expect(stored.map((entry) => entry.record.callId).sort()).toEqual([...ids].sort());
  });

  it("holds writes made while a group is on its way, then sends them together", async () => {
    const tenant = `t-${uid()}`;
    const arrive = latch();
    const { stub, groups } = countingStub(tenant, "a", { holdFirst: arrive.opened });
    const shard = `${tenant}/test`;
    const first = submitWrite(shard, recordWrite(tenant, "first"), { stub });
    await eventually(() => groups.length === 1, "the first group has left");
    // Each in a turn of its own, as separate requests would: none leaves while the first is on its way.
    const later: Promise<WriteOutcome>[] = [];
    for (let i = 0; i < 5; i++) {
      later.push(submitWrite(shard, recordWrite(tenant, `later${i}`), { stub }));
      await nextTurn();
    }
    expect(groups).toEqual([1]);
    arrive.open();
    await Promise.all([first, ...later]);
    expect(groups).toEqual([1, 5]);
  });

  it("holds delayed writes made while a group is on its way for their own delay, so later ones join them", async () => {
    const tenant = `t-${uid()}`;
    const arrive = latch();
    const { stub, groups } = countingStub(tenant, "a", { holdFirst: arrive.opened });
    const shard = `${tenant}/test`;
    // Far above one round trip here: the three writes below are all made within it.
    const context = { stub, delayMs: 2_000 };
    const first = submitWrite(shard, recordWrite(tenant, "first"), { stub });
    await eventually(() => groups.length === 1, "the first group has left");
    const during = submitWrite(shard, recordWrite(tenant, "during"), context);
    arrive.open();
    expect(await first).toEqual({ kind: "done", ok: true });
    // The group on its way has come back: the delayed write still waits, and the next ones join it.
    const after: Promise<WriteOutcome>[] = [];
    for (let i = 0; i < 2; i++) {
      await nextTurn();
      after.push(submitWrite(shard, recordWrite(tenant, `after${i}`), context));
    }
    expect(groups).toEqual([1]);
    expect(await Promise.all([during, ...after])).toEqual([0, 1, 2].map(() => ({ kind: "done", ok: true })));
    expect(groups).toEqual([1, 3]);
  });

  it("bounds a group to 64 writes", async () => {
    const tenant = `t-${uid()}`;
    const { stub, groups } = countingStub(tenant, "a");
    const shard = `${tenant}/test`;
    await Promise.all(Array.from({ length: 70 }, (_, i) => submitWrite(shard, recordWrite(tenant, `b${i}`), { stub })));
    expect(groups).toEqual([64, 6]);
  });

  it("fails only the write that throws in the ledger; the rest of its group is stored", async () => {
    const tenant = `t-${uid()}`;
    const { stub, groups } = countingStub(tenant, "a");
    const shard = `${tenant}/test`;
    // commit() refuses a record that is not terminal.
    const bad: LedgerWrite = {
      op: "commit",
      input: { record: record(tenant, "bad", "running"), argsHash: "h", key: null },
    };
    const [ok1, failed, ok2] = await Promise.all([
      submitWrite(shard, recordWrite(tenant, "ok1"), { stub }),
      submitWrite(shard, bad, { stub }),
      submitWrite(shard, recordWrite(tenant, "ok2"), { stub }),
    ]);
    expect(groups).toEqual([3]);
    expect(ok1).toEqual({ kind: "done", ok: true });
    expect(ok2).toEqual({ kind: "done", ok: true });
    expect(failed).toMatchObject({ kind: "error", message: expect.stringContaining("terminal") });
    expect(await shardOfCall(tenant, "a").get("bad", null)).toBeNull();
  });

  it("sends its writes alone when the group holding them is lost", async () => {
    const tenant = `t-${uid()}`;
    const { stub, groups } = countingStub(tenant, "a", { hangFirst: true });
    const shard = `${tenant}/test`;
    const context = { stub, stallMs: 150 };
    const lost = submitWrite(shard, recordWrite(tenant, "lost"), context);
    await eventually(() => groups.length === 1, "the group holding it has left");
    const waiting = submitWrite(shard, recordWrite(tenant, "waiting"), context);
    expect(await Promise.all([lost, waiting])).toEqual([
      { kind: "done", ok: true },
      { kind: "done", ok: true },
    ]);
    // The lost group, then each write alone; nothing was sent twice to the object that answered.
    expect(groups).toEqual([1, 1, 1]);
    // The shard is usable again: a new write goes at once, in a group of its own.
    await submitWrite(shard, recordWrite(tenant, "after"), context);
    expect(groups).toEqual([1, 1, 1, 1]);
  });

  it("sends an answered write no second time when its stall time passes", async () => {
    const tenant = `t-${uid()}`;
    const { stub, groups } = countingStub(tenant, "a");
    const shard = `${tenant}/test`;
    // The stall time must outlast the write's round trip (else re-sending it is right): 30 ms did not
    // on a loaded machine. The test then waits for the stall timer itself, so it lasts STALL_MS.
    const STALL_MS = 2_000;
    const answered = submitWrite(shard, recordWrite(tenant, "once"), { stub, stallMs: STALL_MS });
    // Set after the write's own stall timer with the same delay, so it fires after that one.
    const stallPassed = new Promise((resolve) => setTimeout(resolve, STALL_MS));
    expect(await answered).toEqual({ kind: "done", ok: true });
    await stallPassed;
    expect(groups).toEqual([1]);
  });

  it("records every call of a parallel batch of read-only calls, and replays a repeated id from the recorded outcome", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = countingTool("lookup", { readOnly: true });
    const registry = createRegistry([tool]);
    const calls = Array.from({ length: 24 }, (_, i) => ({
      id: `p${i}`,
      name: "lookup",
      arguments: JSON.stringify({ text: `q${i}` }),
    }));
    calls.push({ id: "p3", name: "lookup", arguments: JSON.stringify({ text: "q3" }) });
    const results = await executeBatch(calls, { registry, tenant, journal: journal(tenant) });
    expect(results.every((result) => result.ok)).toBe(true);
    expect(state.runs).toBe(25); // read-only: the repeat ran too, but answers the recorded outcome
    expect(results[24]!.record.replay).toBe(true);
    for (let i = 0; i < 24; i++) {
      const entry = await shardOfCall(tenant, `p${i}`).get(`p${i}`, null);
      expect(entry?.record).toMatchObject({ status: "succeeded", args: { text: `q${i}` } });
    }
  });
});
