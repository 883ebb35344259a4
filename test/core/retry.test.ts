import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { executeCall } from "../../src/pipeline/execute";
import { createRegistry } from "../../src/registry";
import { defineTool } from "../../src/tool";
import { toolError } from "../../src/errors";
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
    const { tool, times } = failingTool(5, () => new Error("down"), { idempotent: true, retry: { attempts: 3, baseMs: 10, jitter: false } });
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    const result = await pending;
    expect(!result.ok && result.error.message).toContain("down");
    expect(times).toHaveLength(3);
  });

  it("honours a retry-after hint", async () => {
    const { tool, times } = failingTool(1, () => toolError("upstream_error", "429", { status: 429, retryAfterMs: 2000 }), {
      idempotent: true,
      retry: { attempts: 2, baseMs: 10, jitter: false },
    });
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]) });
    await vi.runAllTimersAsync();
    expect((await pending).ok).toBe(true);
    expect(times).toEqual([0, 2000]);
  });

  it("does not wait out a retry-after hint longer than the cap: answers with the hint", async () => {
    const { tool, times } = failingTool(1, () => toolError("upstream_error", "slow down", { retryAfterMs: 3_600_000 }), {
      idempotent: true,
      retry: { attempts: 3, baseMs: 10 },
    });
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
    const { tool, times } = failingTool(5, () => new Error("x"), { idempotent: true, retry: { attempts: 5, baseMs: 1000, jitter: false } });
    const controller = new AbortController();
    const pending = executeCall(call("flaky"), { registry: createRegistry([tool]), signal: controller.signal });
    await vi.advanceTimersByTimeAsync(500);
    controller.abort();
    const result = await pending;
    expect(!result.ok && result.error.code).toBe("cancelled");
    expect(times).toHaveLength(1);
  });
});
