import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { executeBatch } from "../../../src/pipeline/batch";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";
import { add } from "../fixtures";

function sleeper() {
  let running = 0;
  let maxRunning = 0;
  const tool = defineTool({
    name: "sleep",
    description: "",
    input: v.object({ ms: v.number(), fail: v.optional(v.boolean()) }),
    run: async ({ ms, fail }, ctx) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      try {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, ms);
          ctx.signal.addEventListener("abort", () => (clearTimeout(t), reject(new Error("aborted"))));
        });
        if (fail) throw new Error("asked to fail");
        return ms;
      } finally {
        running--;
      }
    },
  });
  return { tool, max: () => maxRunning };
}

describe("executeBatch", () => {
  it("returns results in input order even when later calls finish first", async () => {
    const { tool } = sleeper();
    const calls = [30, 1, 15].map((ms, i) => ({ id: `c${i}`, name: "sleep", arguments: { ms } }));
    const results = await executeBatch(calls, { registry: createRegistry([tool]) });
    expect(results.map((r) => r.callId)).toEqual(["c0", "c1", "c2"]);
    expect(results.map((r) => r.ok && r.output.structured)).toEqual([30, 1, 15]);
  });

  it("runs at most maxParallel calls at once", async () => {
    const { tool, max } = sleeper();
    const calls = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: "sleep", arguments: { ms: 5 } }));
    const results = await executeBatch(calls, { registry: createRegistry([tool]), maxParallel: 3 });
    expect(results.every((r) => r.ok)).toBe(true);
    expect(max()).toBe(3);
  });

  it("continue (default): a failure does not stop the others", async () => {
    const results = await executeBatch(
      [
        { id: "a", name: "add", arguments: '{"a":1}' },
        { id: "b", name: "add", arguments: '{"a":1,"b":2}' },
      ],
      { registry: createRegistry([add]) },
    );
    expect(results.map((r) => r.ok)).toEqual([false, true]);
  });

  it("abort: the first failure cancels running and not-yet-started calls", async () => {
    const { tool } = sleeper();
    const calls = [
      { id: "slow", name: "sleep", arguments: { ms: 10_000 } },
      { id: "bad", name: "sleep", arguments: { ms: 5, fail: true } },
      { id: "later", name: "sleep", arguments: { ms: 5 } },
    ];
    const started = Date.now();
    const results = await executeBatch(calls, { registry: createRegistry([tool]), maxParallel: 2, onError: "abort" });
    expect(Date.now() - started).toBeLessThan(2_500); // the slow call was cancelled, not waited for
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["cancelled", "tool_error", "cancelled"]);
    expect(results[2]!.record.attempts).toBe(0);
  });

  it("runs synchronous calls without a microtask turn per call", async () => {
    const ran: string[] = [];
    const tool = defineTool({
      name: "note",
      description: "",
      input: v.object({ n: v.number() }),
      run: ({ n }) => void ran.push(`call ${n}`),
    });
    const calls = Array.from({ length: 12 }, (_, n) => ({ id: `c${n}`, name: "note", arguments: { n } }));
    queueMicrotask(() => ran.push("microtask"));
    const results = await executeBatch(calls, { registry: createRegistry([tool]), maxParallel: 3 });
    expect(results.every((r) => r.ok)).toBe(true);
    // Every call ran before a microtask queued ahead of the batch: none of them waited for a turn.
    expect(ran).toEqual([...calls.map((_, n) => `call ${n}`), "microtask"]);
  });

  it("abort: a synchronous failure cancels the calls after it before they start", async () => {
    const started: string[] = [];
    const tool = defineTool({
      name: "check",
      description: "",
      input: v.object({ fail: v.boolean() }),
      run: ({ fail }, ctx) => {
        started.push(ctx.callId);
        if (fail) throw new Error("asked to fail");
        return "fine";
      },
    });
    const calls = [true, false, false].map((fail, i) => ({ id: `c${i}`, name: "check", arguments: { fail } }));
    const results = await executeBatch(calls, { registry: createRegistry([tool]), maxParallel: 2, onError: "abort" });
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["tool_error", "cancelled", "cancelled"]);
    expect(started).toEqual(["c0"]);
  });

  it("an empty batch is an empty answer", async () => {
    expect(await executeBatch([], { registry: createRegistry([add]) })).toEqual([]);
  });
});
