import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { JsonValue } from "../../../src/json";
import { resultText } from "../../../src/result";
import { defineTool } from "../../../src/tool";
import { eventually, latch } from "../../wait";
import { journal, shardOfCall, uid } from "../helpers/ledger";

/**
 * Read-only tools defer the claim of their call id (worker/ledger-journal.ts): a call that ends within
 * deferMs is stored by one commit(); a longer one is claimed and watched like any other.
 */
/** hold: a run (by number, from 1) waits for the promise it answers before it returns. */
function lookupTool(opts: { readOnly?: boolean; hold?: (run: number) => Promise<void> | undefined } = {}) {
  const state = { runs: 0, active: 0 };
  const tool = defineTool({
    name: "lookup",
    description: "A read-only lookup that takes `ms`",
    input: v.object({ q: v.string(), ms: v.optional(v.number(), 0) }),
    policy: { readOnly: opts.readOnly ?? true },
    async run({ q, ms }, ctx) {
      const run = ++state.runs;
      state.active++;
      try {
        await opts.hold?.(run);
        if (ms > 0) {
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, ms);
            ctx.signal.addEventListener("abort", () => (clearTimeout(timer), reject(ctx.signal.reason)), {
              once: true,
            });
          });
        }
        return `${q} (run ${run})`;
      } finally {
        state.active--;
      }
    },
  });
  return { tool, state };
}

const call = (id: string, args: unknown) => ({ id, name: "lookup", arguments: JSON.stringify(args) });

describe("deferred claims of read-only calls", () => {
  it("records a short call with its started and finished events, and replays it", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = lookupTool();
    const registry = createRegistry([tool]);
    const options = { registry, tenant, journal: journal(tenant) };
    const first = await executeCall(call("r1", { q: "weather" }), options);
    expect(first.ok && resultText(first)).toBe("weather (run 1)");

    const shard = shardOfCall(tenant, "r1");
    const entry = await shard.get("r1", null);
    expect(entry?.record).toMatchObject({ callId: "r1", tool: "lookup", status: "succeeded", args: { q: "weather" } });
    const { events } = await shard.events(0, 0, null);
    const mine = events
      .filter((event) => (event.data as { callId?: string }).callId === "r1")
      .map((event) => event.type);
    expect(mine).toEqual(["call.started", "call.finished"]);

    const again = await executeCall(call("r1", { q: "weather" }), { ...options, journal: journal(tenant) });
    expect(again.record.replay).toBe(true);
    expect(again.ok && resultText(again)).toBe("weather (run 1)");
    // The repeat ran the tool (read-only: harmless) but answered the recorded outcome.
    expect(state.runs).toBe(2);
  });

  it("answers conflict for the same id with other arguments and leaves the record alone", async () => {
    const tenant = `t-${uid()}`;
    const { tool } = lookupTool();
    const registry = createRegistry([tool]);
    const options = { registry, tenant, journal: journal(tenant) };
    await executeCall(call("r2", { q: "a" }), options);
    const other = await executeCall(call("r2", { q: "b" }), options);
    expect(!other.ok && other.error.code).toBe("conflict");
    expect(!other.ok && other.error.message).toContain("already used");
    const entry = await shardOfCall(tenant, "r2").get("r2", null);
    expect(entry?.record.args).toEqual({ q: "a" });
  });

  it("gives concurrent duplicates the one recorded outcome", async () => {
    const tenant = `t-${uid()}`;
    const { tool } = lookupTool();
    const registry = createRegistry([tool]);
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        executeCall(call("r3", { q: "same", ms: 30 }), { registry, tenant, journal: journal(tenant) }),
      ),
    );
    const stored = await shardOfCall(tenant, "r3").get("r3", null);
    const storedText = stored?.record.output?.content[0];
    expect(results.every((result) => result.ok)).toBe(true);
    expect(results.filter((result) => !result.record.replay).length).toBe(1);
    for (const result of results) expect(result.ok && result.output.content[0]).toEqual(storedText);
  });

  it("claims a call still running after deferMs: it shows as running and can be cancelled", async () => {
    const tenant = `t-${uid()}`;
    const { tool, state } = lookupTool();
    const registry = createRegistry([tool]);
    const options = { registry, tenant, journal: journal(tenant, { deferMs: 30 }) };
    const running = executeCall(call("r4", { q: "slow", ms: 20_000 }), options);
    const shard = shardOfCall(tenant, "r4");
    await eventually(async () => (await shard.get("r4", null))?.record.status === "running", "the call is claimed");
    expect(state.active).toBe(1);

    expect(await shard.cancel("r4", null, "enough")).toMatchObject({ ok: true });
    const result = await running;
    expect(!result.ok && result.error.code).toBe("cancelled");
    expect((await shard.get("r4", null))?.record.status).toBe("cancelled");
  });

  it("masks a short call's record once; a call claimed late stores its running record masked", async () => {
    const tenant = `t-${uid()}`;
    const { tool } = lookupTool();
    const registry = createRegistry([tool]);
    let masked = 0;
    // A mask that counts what it masks, and hides every q.
    const mask = (value: JsonValue): JsonValue => {
      masked++;
      return JSON.parse(JSON.stringify(value).replaceAll('"secret"', '"[masked]"')) as JsonValue;
    };
    const options = { registry, tenant, hooks: { mask } };
    await executeCall(call("r7", { q: "secret" }), options);
    const alone = masked;
    masked = 0;
    const short = await executeCall(call("r8", { q: "secret" }), { ...options, journal: journal(tenant) });
    expect(short.ok).toBe(true);
    expect(masked).toBe(alone);
    expect((await shardOfCall(tenant, "r8").get("r8", null))?.record.args).toEqual({ q: "[masked]" });

    const running = executeCall(call("r9", { q: "secret", ms: 20_000 }), {
      ...options,
      journal: journal(tenant, { deferMs: 30 }),
    });
    const shard = shardOfCall(tenant, "r9");
    await eventually(async () => (await shard.get("r9", null))?.record.status === "running", "the call is claimed");
    expect((await shard.get("r9", null))?.record.args).toEqual({ q: "[masked]", ms: 20_000 });
    expect(await shard.cancel("r9", null, "enough")).toMatchObject({ ok: true });
    expect((await running).ok).toBe(false);
  });

  it("a short duplicate of a claimed running call answers that call's outcome", async () => {
    const tenant = `t-${uid()}`;
    const slowMayEnd = latch();
    const { tool, state } = lookupTool({ hold: (run) => (run === 1 ? slowMayEnd.opened : undefined) });
    const registry = createRegistry([tool]);
    const slow = executeCall(call("r5", { q: "x" }), { registry, tenant, journal: journal(tenant, { deferMs: 20 }) });
    const shard = shardOfCall(tenant, "r5");
    await eventually(
      async () => (await shard.get("r5", null))?.record.status === "running",
      "the slow call is claimed",
    );
    // Same id and arguments while the first is claimed: this run ends first, then joins the claimed one.
    const pending = executeCall(call("r5", { q: "x" }), { registry, tenant, journal: journal(tenant) });
    await eventually(() => state.runs === 2 && state.active === 1, "the duplicate's own run has ended");
    slowMayEnd.open();
    const quick = await pending;
    const first = await slow;
    expect(first.record.replay).toBeUndefined();
    expect(quick.record.replay).toBe(true);
    expect(quick.ok && resultText(quick)).toBe(first.ok ? resultText(first) : "");
  });

  it("tools that are not read-only still claim before they run", async () => {
    const tenant = `t-${uid()}`;
    const mayEnd = latch();
    const { tool, state } = lookupTool({ readOnly: false, hold: () => mayEnd.opened });
    const registry = createRegistry([tool]);
    const running = executeCall(call("r6", { q: "w" }), { registry, tenant, journal: journal(tenant) });
    const shard = shardOfCall(tenant, "r6");
    await eventually(() => state.runs === 1, "the tool runs");
    expect((await shard.get("r6", null))?.record.status).toBe("running");
    mayEnd.open();
    await running;
    // A duplicate of a finished non-read-only call never runs again.
    await executeCall(call("r6", { q: "w" }), { registry, tenant, journal: journal(tenant) });
    expect(state.runs).toBe(1);
  });
});
