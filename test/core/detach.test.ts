import * as v from "valibot";
import { describe, expect, it } from "vitest";
import type { CallJournal, HandOff } from "../../src/journal";
import { executeCall } from "../../src/pipeline/execute";
import { createRegistry } from "../../src/registry";
import type { CallRunner, DetachedCall } from "../../src/runner";
import type { ToolPolicy } from "../../src/policy";
import { defineTool } from "../../src/tool";

/** A journal that claims every id and hands a call off on request; it records what reached it. */
function journal() {
  const log: string[] = [];
  const finished: string[] = [];
  const errors = new Map<string, string>();
  const j: CallJournal = {
    async begin(call) {
      log.push(`begin ${call.callId}`);
      return { kind: "new" };
    },
    async finish(record) {
      finished.push(`${record.callId} ${record.status}`);
      if (record.error) errors.set(record.callId, record.error.message);
    },
    async handOff(callId): Promise<HandOff> {
      log.push(`handOff ${callId}`);
      return { owner: `owner-of-${callId}`, release: () => log.push(`release ${callId}`) };
    },
  };
  return { journal: j, log, finished, errors };
}

function runner() {
  const detached: DetachedCall[] = [];
  const standing: DetachedCall[] = [];
  const r: CallRunner = {
    async detach(job) {
      detached.push(job);
    },
    async standby(job) {
      standing.push(job);
    },
  };
  return { runner: r, detached, standing };
}

/** A tool that waits until the test lets it end (or answers at once), with the given policy. */
function gatedTool(policy: ToolPolicy<{ n: number }>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let runs = 0;
  const tool = defineTool({
    name: "work",
    description: "",
    input: v.object({ n: v.number() }),
    policy,
    async run({ n }) {
      runs++;
      await released;
      return { n };
    },
  });
  return { tool, release, runs: () => runs };
}

const call = (id: string) => ({ id, name: "work", arguments: '{"n":1}' });

describe("execution: detached", () => {
  it("hands the claimed call to the runner and answers it as running, without running it here", async () => {
    const { tool, runs } = gatedTool({ execution: "detached", idempotent: true });
    const j = journal();
    const r = runner();
    const result = await executeCall(call("d1"), {
      registry: createRegistry([tool]),
      journal: j.journal,
      runner: r.runner,
    });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "running" },
      record: { status: "running", callId: "d1" },
    });
    expect(r.detached).toEqual([
      { callId: "d1", tool: "work", args: { n: 1 }, owner: "owner-of-d1", idempotent: true },
    ]);
    expect(j.log).toEqual(["begin d1", "handOff d1", "release d1"]);
    expect(j.finished).toEqual([]);
    expect(runs()).toBe(0);
  });

  it("runs inline where there is no runner (the core alone), or no journal to carry the record", async () => {
    const { tool, release } = gatedTool({ execution: "detached" });
    release();
    const r = runner();
    const alone = await executeCall(call("d2"), { registry: createRegistry([tool]) });
    expect(alone).toMatchObject({ ok: true, output: { structured: { n: 1 } } });
    const noJournal = await executeCall(call("d3"), { registry: createRegistry([tool]), runner: r.runner });
    expect(noJournal.ok).toBe(true);
    expect(r.detached).toEqual([]);
  });

  it("a runner that cannot take the call: the caller already heard it runs; its record ends failed with why, finished here", async () => {
    const { tool, runs } = gatedTool({ execution: "detached" });
    const j = journal();
    const failing: CallRunner = { detach: () => Promise.reject(new Error("no host")) };
    const result = await executeCall(call("d4"), {
      registry: createRegistry([tool]),
      journal: j.journal,
      runner: failing,
    });
    expect(result).toMatchObject({ ok: false, error: { code: "running" } });
    await expect.poll(() => j.finished).toEqual(["d4 failed"]);
    expect(j.errors.get("d4")).toMatch(/no host/);
    expect(j.log).toEqual(["begin d4", "handOff d4"]);
    expect(runs()).toBe(0);
  });
});

describe("execution: auto", () => {
  it("a call that ends within detachAfterMs answers its result; the runner is never asked", async () => {
    const { tool, release } = gatedTool({ execution: "auto", detachAfterMs: 10_000 });
    release();
    const j = journal();
    const r = runner();
    const result = await executeCall(call("a1"), {
      registry: createRegistry([tool]),
      journal: j.journal,
      runner: r.runner,
    });
    expect(result).toMatchObject({ ok: true, output: { structured: { n: 1 } } });
    expect(r.standing).toEqual([]);
    expect(j.log).toEqual(["begin a1"]);
  });

  it("a call still running at detachAfterMs answers running; it goes on here and its record is finished here", async () => {
    const { tool, release, runs } = gatedTool({ execution: "auto", detachAfterMs: 20 });
    const j = journal();
    const r = runner();
    const result = await executeCall(call("a2"), {
      registry: createRegistry([tool]),
      journal: j.journal,
      runner: r.runner,
    });
    expect(result).toMatchObject({ ok: false, error: { code: "running" }, record: { status: "running" } });
    // The runner stands by (to settle it should this request die); the call was not handed over.
    expect(r.standing.map((job) => job.callId)).toEqual(["a2"]);
    expect(j.log).toEqual(["begin a2", "handOff a2"]);
    expect(runs()).toBe(1);
    release();
    await expect.poll(() => j.finished).toEqual(["a2 succeeded"]);
  });
});
