import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { executeCall } from "../../../src/pipeline/execute";
import type { CallJournal, ClaimWatch } from "../../../src/journal";
import { createLocalLimiter } from "../../../src/gates/local-limiter";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";

/**
 * A gated call and its journal's ClaimWatch: the pipeline tells the journal when the call starts
 * waiting, and asks it (once) before a call that waited uses its slot.
 */

const call = (id: string) => ({ id, name: "gated", arguments: {} });

function setup(mayStart: () => Promise<boolean>) {
  const events: string[] = [];
  let runs = 0;
  const gated = defineTool({
    name: "gated",
    description: "",
    input: v.object({}),
    policy: { concurrency: { limit: 1 } },
    run: () => (runs++, "ran"),
  });
  const journal: CallJournal = {
    async begin(entry) {
      const watch: ClaimWatch = {
        queued: () => events.push(`queued ${entry.callId}`),
        mayStart: () => (events.push(`asked ${entry.callId}`), mayStart()),
      };
      return { kind: "new", watch };
    },
    async finish() {},
  };
  const limiter = createLocalLimiter();
  const options = { registry: createRegistry([gated]), journal, limiter, tenant: "t" };
  /** Takes the gate's only slot, so the next call waits; answers its release. */
  const hold = async () => {
    const holder = await limiter.acquire({
      gate: "t:tool:gated",
      rules: { limit: 1, maxQueue: 8 },
      callId: "holder",
      tool: "gated",
      leaseMs: 60_000,
    });
    if (!holder.ok) throw new Error("the holder should get the slot");
    return holder.release;
  };
  return { events, options, limiter, hold, runs: () => runs };
}

describe("a gated call and its journal's watch", () => {
  it("a call granted at once is never asked: no extra round trip for a call that did not wait", async () => {
    const { events, options, runs } = setup(async () => true);
    expect((await executeCall(call("a"), options)).ok).toBe(true);
    expect(events).toEqual([]);
    expect(runs()).toBe(1);
  });

  it("a call that waited is refused when a cancel was accepted meanwhile: it never runs and frees its slot", async () => {
    const { events, options, limiter, hold, runs } = setup(async () => false);
    const release = await hold();
    const waiting = executeCall(call("b"), options);
    await expect.poll(() => events).toEqual(["queued b"]);
    await release();
    const result = await waiting;
    expect(result).toMatchObject({
      ok: false,
      error: { code: "cancelled" },
      record: { status: "cancelled", attempts: 0 },
    });
    expect(events).toEqual(["queued b", "asked b"]);
    expect(runs()).toBe(0);
    expect(limiter.inspect("t:tool:gated")).toBeUndefined(); // the slot it was granted is free again
  });

  it("a call that waited runs when the journal allows it", async () => {
    const { events, options, hold, runs } = setup(async () => true);
    const release = await hold();
    const waiting = executeCall(call("c"), options);
    await expect.poll(() => events).toEqual(["queued c"]);
    await release();
    expect((await waiting).ok).toBe(true);
    expect(events).toEqual(["queued c", "asked c"]);
    expect(runs()).toBe(1);
  });

  it("a call that waited does not start when its journal cannot tell whether it was cancelled", async () => {
    const { options, limiter, hold, runs } = setup(async () => {
      throw new Error("ledger unreachable");
    });
    const release = await hold();
    const waiting = executeCall(call("d"), options);
    await expect.poll(() => limiter.inspect("t:tool:gated")?.queued).toEqual(["d"]);
    await release();
    const result = await waiting;
    expect(result).toMatchObject({
      ok: false,
      error: { code: "internal", message: expect.stringContaining("did not start") },
    });
    expect(runs()).toBe(0);
    expect(limiter.inspect("t:tool:gated")).toBeUndefined();
  });
});
