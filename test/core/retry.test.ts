import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { executeCall } from "../../src/pipeline/execute";
import { createRegistry } from "../../src/registry";
import { defineTool } from "../../src/tool";
import { isToolError, toolError } from "../../src/errors";
import { composeHooks, type Hooks } from "../../src/hooks";
import { backoffDelay } from "../../src/retry";
import type { ToolPolicy } from "../../src/policy";

const call = (name: string) => ({ id: "r1", name, arguments: {} });

/** A tool that fails `failures` times (with the given error), then succeeds; records when each attempt ran. */
function failingTool(failures: number, error: () => unknown, policy: ToolPolicy<Record<string, never>>) {
  const times: number[] = [];
  const tool = defineTool({
    name: "flaky",
    description: "",
    input: v.object({}),
    policy,
    run: async () => {
      times.push(Date.now());
      if (times.length <= failures) throw error();
      return "ok";
    },
  });
  return { tool, times };
}

describe("backoffDelay", () => {
  it("grows exponentially up to the cap, with full jitter by default", () => {
    const policy = { attempts: 10, baseMs: 100, capMs: 1000, jitter: false };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(3, { attempts: 5, baseMs: 100 }, undefined, () => 0.5)).toBe(200);
    expect(backoffDelay(1, { attempts: 5, baseMs: 100 }, 5000, () => 0.5)).toBe(5000);
  });
});

describe("retries (fake timers)", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it("retries an idempotent tool with exponential backoff until it succeeds", async () => {
    const { tool, times } = failingTool(2, () => new Error("transient"), {
      idempotent: true,
      retry: { attempts: 3, baseMs: 100, jitter: false },
    });
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    const result = await pending;
    expect(result.ok).toBe(true);
    expect(result.record.attempts).toBe(3);
    expect(times).toEqual([0, 100, 300]);
  });

  it("gives up after the last attempt with the last error", async () => {
    const { tool, times } = failingTool(5, () => new Error("down"), {
      idempotent: true,
      retry: { attempts: 3, baseMs: 10, jitter: false },
    });
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    const result = await pending;
    expect(!result.ok && result.error.message).toContain("down");
    expect(times).toHaveLength(3);
  });

  it("honours a retry-after hint", async () => {
    const { tool, times } = failingTool(
      1,
      () => toolError("upstream_error", "429", { status: 429, retryAfterMs: 2000 }),
      {
        idempotent: true,
        retry: { attempts: 2, baseMs: 10, jitter: false },
      },
    );
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    expect((await pending).ok).toBe(true);
    expect(times).toEqual([0, 2000]);
  });

  it("does not wait out a retry-after hint longer than the cap: answers with the hint", async () => {
    const { tool, times } = failingTool(
      1,
      () => toolError("upstream_error", "slow down", { retryAfterMs: 3_600_000 }),
      {
        idempotent: true,
        retry: { attempts: 3, baseMs: 10 },
      },
    );
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    const result = await pending;
    expect(!result.ok && result.error.retryAfterMs).toBe(3_600_000);
    expect(times).toHaveLength(1);
  });

  it("stops at once on a non-retryable error", async () => {
    const { tool, times } = failingTool(5, () => toolError("tool_error", "bad input upstream", { retryable: false }), {
      idempotent: true,
      retry: { attempts: 5, baseMs: 10 },
    });
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    expect((await pending).ok).toBe(false);
    expect(times).toHaveLength(1);
  });

  it("never retries a tool that is not idempotent (the failure may have had a side effect)", async () => {
    const { tool, times } = failingTool(5, () => new Error("maybe sent"), { retry: { attempts: 5, baseMs: 10 } });
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    expect((await pending).ok).toBe(false);
    expect(times).toHaveLength(1);
  });

  it("retries timeouts of idempotent tools, each attempt with its own deadline", async () => {
    let attempts = 0;
    const slowThenFast = defineTool({
      name: "slow",
      description: "",
      input: v.object({}),
      policy: { readOnly: true, timeoutMs: 1000, retry: { attempts: 2, baseMs: 50, jitter: false } },
      run: () => {
        attempts++;
        return attempts === 1 ? new Promise<string>(() => {}) : Promise.resolve("fast");
      },
    });
    const pending = executeCall(call("slow"), { registry: createRegistry([slowThenFast]) });
    await vi.runAllTimersAsync();
    const result = await pending;
    expect(result.ok).toBe(true);
    expect(result.record.attempts).toBe(2);
  });

  it("cancellation during backoff ends the call as cancelled", async () => {
    const { tool, times } = failingTool(5, () => new Error("x"), {
      idempotent: true,
      retry: { attempts: 5, baseMs: 1000, jitter: false },
    });
    const controller = new AbortController();
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]), signal: controller.signal });
    await vi.advanceTimersByTimeAsync(500);
    controller.abort();
    const result = await pending;
    expect(!result.ok && result.error.code).toBe("cancelled");
    expect(times).toHaveLength(1);
  });
});

describe("shouldRetry deciding the backoff too (fake timers)", () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  /** Runs the call to its end and answers its result with when each attempt ran. */
  async function run(failures: number, error: () => unknown, policy: ToolPolicy<Record<string, never>>, hooks: Hooks) {
    const { tool, times } = failingTool(failures, error, policy);
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]), hooks });
    await vi.runAllTimersAsync();
    return { result: await pending, times };
  }

  it("waits the hook's delay instead of the policy's backoff", async () => {
    const policy = { idempotent: true, retry: { attempts: 3, baseMs: 10, jitter: false } };
    const hooks: Hooks = { shouldRetry: (_call, _error, attempt) => ({ retry: true, delayMs: attempt * 7_000 }) };
    const { result, times } = await run(2, () => new Error("transient"), policy, hooks);
    expect(result.ok).toBe(true);
    expect(times).toEqual([0, 7_000, 21_000]);
  });

  it("lets the hook honour an upstream's hint longer than the policy would wait", async () => {
    const hinted = () => toolError("upstream_error", "429", { status: 429, retryAfterMs: 20_000 });
    const policy = { idempotent: true, retry: { attempts: 2, baseMs: 10, capMs: 1_000 } };
    const honour: Hooks = {
      shouldRetry: (_call, error) => {
        const hint = isToolError(error) ? error.retryAfterMs : undefined;
        return hint === undefined ? undefined : { retry: true, delayMs: hint };
      },
    };
    expect((await run(1, hinted, policy, {})).times).toEqual([0]); // the default gives up on a hint past its cap
    const { result, times } = await run(1, hinted, policy, honour);
    expect(result.ok).toBe(true);
    expect(times).toEqual([0, 20_000]);
  });

  it("retries nothing when the hook answers retry: false, whatever the delay", async () => {
    const policy = { idempotent: true, retry: { attempts: 3, baseMs: 10 } };
    const { result, times } = await run(2, () => new Error("transient"), policy, {
      shouldRetry: () => ({ retry: false, delayMs: 5 }),
    });
    expect(result.ok).toBe(false);
    expect(times).toEqual([0]);
  });

  it("waits only while the next attempt fits the call's budget; past it, ends with retryAfterMs", async () => {
    // Budget 3 × 1000 ms from the first attempt: a delay of 2000 ms leaves the second attempt its whole second.
    const policy = { idempotent: true, timeoutMs: 1_000, retry: { attempts: 3, baseMs: 10 } };
    const delayOf = (delayMs: number): Hooks => ({ shouldRetry: () => ({ retry: true, delayMs }) });
    const fits = await run(1, () => new Error("transient"), policy, delayOf(2_000));
    expect(fits.times).toEqual([0, 2_000]);
    expect(fits.result.ok).toBe(true);
    vi.setSystemTime(0);
    const past = await run(1, () => new Error("transient"), policy, delayOf(2_001));
    expect(past.times).toEqual([0]);
    expect(!past.result.ok && past.result.error).toMatchObject({ code: "tool_error", retryAfterMs: 2_001 });
    expect(past.result.record.attempts).toBe(1);
  });

  it("ends the hook's delay at once when the call is cancelled", async () => {
    const policy = { idempotent: true, retry: { attempts: 3, baseMs: 10 } };
    const { tool, times } = failingTool(1, () => new Error("x"), policy);
    const controller = new AbortController();
    const hooks: Hooks = { shouldRetry: () => ({ retry: true, delayMs: 30_000 }) };
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]), signal: controller.signal, hooks });
    await vi.advanceTimersByTimeAsync(1_000);
    controller.abort();
    const result = await pending;
    expect(!result.ok && result.error.code).toBe("cancelled");
    expect(times).toEqual([0]);
    expect(Date.now()).toBe(1_000);
    expect(vi.getTimerCount()).toBe(0); // the delay's timer is gone with it
  });

  it("composes: the first hook with an answer decides, delay included", async () => {
    const hooks = composeHooks([
      { shouldRetry: () => undefined },
      { shouldRetry: () => ({ retry: true, delayMs: 4_000 }) },
      { shouldRetry: () => false },
    ]);
    const policy = { idempotent: true, retry: { attempts: 2, baseMs: 10 } };
    const { times } = await run(1, () => new Error("transient"), policy, hooks);
    expect(times).toEqual([0, 4_000]);
  });
});
