import { describe, expect, it } from "vitest";
import { callTools, uid, upstreams } from "../helpers/adapters";
import { arrivals, expectNoSlotHeld, expectOneTerminalRecordEach, faultTenant } from "../helpers/faults";

/**
 * Upstream faults end to end through POST /v1/calls/openai: each call leaves one terminal record,
 * runs the upstream no more often than its retry policy allows, and frees its gate slot.
 */

const { httpApi: api, meter } = upstreams;
const gated = { concurrency: { limit: 1 } };
const fastRetry = (attempts: number) => ({ attempts, baseMs: 1, capMs: 5, jitter: false });

describe("upstream faults", () => {
  it("5xx: an idempotent GET is retried up to its attempts, a POST runs once", async () => {
    const [b1, b2] = [`5xx-get-${uid()}`, `5xx-post-${uid()}`];
    const { env } = faultTenant("f5xx", {
      http: [
        { name: "get_down", description: "502s", url: `${meter}/m/${b1}?status=502`, retry: fastRetry(3), ...gated },
        {
          name: "post_down",
          description: "500s",
          method: "POST",
          url: `${meter}/m/${b2}?status=500`,
          retry: fastRetry(3),
          ...gated,
        },
      ],
    });
    const { ids, records } = await callTools(env, ["get_down", {}], ["post_down", {}]);
    expect(records.map((r) => [r.status, r.error.code, r.error.status, r.attempts])).toEqual([
      ["failed", "upstream_error", 502, 3],
      ["failed", "upstream_error", 500, 1],
    ]);
    expect((await arrivals(b1)).length).toBe(3);
    expect((await arrivals(b2)).length).toBe(1); // not idempotent: never repeated after a possible side effect
    await expectOneTerminalRecordEach(env, ids);
    await expectNoSlotHeld(env);
  });

  it("429 with Retry-After: an idempotent GET waits it out and succeeds, a POST answers the hint without repeating", async () => {
    const bucket = `429-${uid()}`;
    const { env } = faultTenant("f429", {
      http: [
        {
          name: "get_limited",
          description: "429 once",
          url: `${api}/limited/${bucket}?after=2&retry=1`,
          retry: fastRetry(2),
          ...gated,
        },
        {
          name: "post_limited",
          description: "always 429",
          method: "POST",
          url: `${meter}/m/${bucket}?status=429&retry=1`,
          retry: fastRetry(3),
          ...gated,
        },
      ],
    });
    const started = Date.now();
    const { ids, records } = await callTools(env, ["get_limited", {}], ["post_limited", {}]);
    expect(records[0]).toMatchObject({ status: "succeeded", attempts: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950); // the Retry-After of 1 s was honoured
    expect(records[1]).toMatchObject({
      status: "failed",
      attempts: 1,
      error: { code: "upstream_error", status: 429, retryAfterMs: 1000 },
    });
    expect((await arrivals(bucket)).length).toBe(1);
    await expectOneTerminalRecordEach(env, ids);
    await expectNoSlotHeld(env);
  });

  it("hang: the call times out at its deadline, is recorded timed_out, and the next call gets the slot", async () => {
    const { env } = faultTenant("fhang", {
      tools: ["add", "sleep"],
      http: [
        {
          name: "hangs",
          description: "never answers in time",
          url: `${api}/slow?ms=20000`,
          timeoutMs: 300,
          retry: fastRetry(1),
          concurrency: { group: "g", limit: 1 },
        },
      ],
      policies: { sleep: { concurrency: { group: "g", limit: 1 } } },
    });
    const started = Date.now();
    const { ids, records } = await callTools(env, ["hangs", {}], ["sleep", { ms: 1 }]);
    expect(records.map((r) => [r.status, r.error?.code])).toEqual([
      ["timed_out", "timeout"],
      ["succeeded", undefined],
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expectOneTerminalRecordEach(env, ids);
    await expectNoSlotHeld(env);
  });

  it("truncated body or no connection: an upstream_error, retried only when idempotent", async () => {
    const { env } = faultTenant("ftrunc", {
      http: [
        { name: "get_cut", description: "cut short", url: `${api}/truncated`, retry: fastRetry(2), ...gated },
        {
          name: "post_cut",
          description: "cut short",
          method: "POST",
          url: `${api}/truncated`,
          retry: fastRetry(3),
          ...gated,
        },
        {
          name: "get_nobody",
          description: "nothing listens",
          url: "http://127.0.0.1:1/x",
          retry: fastRetry(2),
          ...gated,
        },
      ],
    });
    const { ids, messages, records } = await callTools(env, ["get_cut", {}], ["post_cut", {}], ["get_nobody", {}]);
    expect(records.map((r) => [r.status, r.error?.code, r.attempts])).toEqual([
      ["failed", "upstream_error", 2],
      ["failed", "upstream_error", 1],
      ["failed", "upstream_error", 2],
    ]);
    // The model reads what went wrong.
    expect(messages[1]!.content).toMatch(/response body broke off/);
    expect(messages[2]!.content).toMatch(/could not be reached/);
    await expectOneTerminalRecordEach(env, ids);
    await expectNoSlotHeld(env);
  });
});

describe("tools that throw", () => {
  it("a gated throwing tool fails each call once and frees its slot for the next; retries stop at the policy", async () => {
    const { env } = faultTenant("fthrow", {
      tools: ["fail", "flaky"],
      policies: { fail: gated, flaky: { concurrency: { limit: 1 }, retry: fastRetry(3), idempotent: true } },
    });
    const fails = Array.from({ length: 8 }, (_, i): [string, unknown] => ["fail", { message: `boom ${i}` }]);
    const { ids, records } = await callTools(env, ...fails, ["flaky", { failures: 1 }], ["flaky", { failures: 5 }]);
    expect(
      records.slice(0, 8).every((r) => r.status === "failed" && r.error.code === "tool_error" && r.attempts === 1),
    ).toBe(true);
    expect(records.slice(8).map((r) => [r.status, r.attempts])).toEqual([
      ["succeeded", 2],
      ["failed", 3],
    ]);
    await expectOneTerminalRecordEach(env, ids);
    await expectNoSlotHeld(env);
  });
});
