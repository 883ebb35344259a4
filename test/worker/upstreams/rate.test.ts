import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantUpstreams, type UpstreamNamespace } from "../../../worker/upstreams/address";
import { createUpstreamGate } from "../../../worker/upstreams/upstream-gate";
import { backOff, take, type BucketState } from "../../../worker/upstreams/bucket";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";

const meter = upstreams.meter;
const arrivals = async (bucket: string): Promise<number[]> =>
  (await (await fetch(`${meter}/log/${bucket}`)).json()) as number[];

describe("the token bucket (GCRA with reservations)", () => {
  const limit = { requests: 5, intervalMs: 1000, burst: 2 }; // one token per 200 ms, two at once
  const fresh: BucketState = { tat: 0, blockedUntil: 0 };

  it("lets a burst through, then hands out send times one step apart", () => {
    let state = fresh;
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = take(state, limit, 10_000, 5_000);
      state = next.state;
      waits.push(next.grant.ok ? next.grant.waitMs : -1);
    }
    expect(waits).toEqual([0, 0, 200, 400, 600]);
  });

  it("refuses without reserving when the wait would exceed the caller's budget", () => {
    const full = { tat: 10_000 + 1_000, blockedUntil: 0 };
    const refused = take(full, limit, 10_000, 500);
    expect(refused.grant).toEqual({ ok: false, retryAfterMs: 800 });
    expect(refused.state).toBe(full);
  });

  it("holds everyone back after a Retry-After, then resumes one step apart (no burst)", () => {
    const blocked = backOff(fresh, limit, 10_000, 3_000);
    const a = take(blocked, limit, 10_000, 10_000);
    const b = take(a.state, limit, 10_000, 10_000);
    expect([a.grant, b.grant]).toEqual([
      { ok: true, waitMs: 3_000 },
      { ok: true, waitMs: 3_200 },
    ]);
    expect(backOff(blocked, limit, 10_000, 1_000).blockedUntil).toBe(13_000); // a shorter hint never shortens it
  });
});

describe("shared upstream rate limits through the Upstream Durable Object", () => {
  it("makes a caller wait its turn in its own request, and stop waiting when its call is cancelled", async () => {
    const upstreams: UpstreamNamespace = env.UPSTREAMS; // the binding fits the structural type the tenant code uses
    const gate = createUpstreamGate(
      tenantUpstreams({ UPSTREAMS: upstreams }, `gate-${uid()}`),
      "https://api.example.com",
      { requests: 1, intervalMs: 600 },
    );
    const live = new AbortController().signal;
    // Timed from before the first take: the object schedules the second one step (600 ms) after it
    // granted the first, and that grant came after this clock read, however slow the round trips.
    const started = Date.now();
    expect(await gate.take(0, live)).toEqual({ ok: true });
    expect(await gate.take(2_000, live)).toEqual({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    // A caller whose turn is a whole step (5 s) away stops waiting when its call is cancelled after
    // 100 ms, long before its turn (a margin no round trip on a loaded machine comes near).
    const slow = createUpstreamGate(
      tenantUpstreams({ UPSTREAMS: upstreams }, `gate-${uid()}`),
      "https://api.example.com",
      { requests: 1, intervalMs: 5_000 },
    );
    expect(await slow.take(0, live)).toEqual({ ok: true });
    const cancelled = Date.now();
    await expect(slow.take(10_000, AbortSignal.timeout(100))).rejects.toThrow();
    expect(Date.now() - cancelled).toBeLessThan(2_500);
    expect(await slow.take(100, live)).toMatchObject({ ok: false, retryAfterMs: expect.any(Number) });
  });

  it("lets at most the budget reach the upstream, across concurrent requests", async () => {
    const bucket = `rl-${uid()}`;
    const rateLimit = { requests: 4, intervalMs: 1600, burst: 2 }; // a step of 400 ms: well above request jitter
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`rl-${uid()}`, {
        http: [
          {
            name: "metered",
            description: "Counts arrivals",
            url: `${meter}/m/${bucket}`,
            input: { type: "object", properties: { n: { type: "integer" } } },
            rateLimit,
            timeoutMs: 10_000,
          },
        ],
      }),
    };
    // Two requests at once (as two isolates would send), three calls each.
    const batch = () => callTools(env, ...[1, 2, 3].map((n): [string, unknown] => ["metered", { n }]));
    const results = await Promise.all([batch(), batch()]);
    expect(results.flatMap((r) => r.records.map((rec) => rec.status))).toEqual(Array(6).fill("succeeded"));

    const times = (await arrivals(bucket)).sort((a, b) => a - b);
    expect(times).toHaveLength(6);
    const step = rateLimit.intervalMs / rateLimit.requests;
    const slack = 150; // arrivals lag their send times by a varying delay (a loaded machine: tens of ms)
    times.forEach((at, k) => {
      // The k-th arrival (0-based) needs k + 1 tokens: burst at once, then one per step. So no
      // interval holds more than burst − 1 + requests arrivals, whichever isolate sent them.
      expect(at - times[0]!).toBeGreaterThanOrEqual((k + 1 - rateLimit.burst) * step - slack);
    });
    // Not much slower than the schedule either: the last of six goes at 4 steps.
    expect(times[5]! - times[0]!).toBeLessThan(4 * step + 1_000);
  });

  it("makes the next callers wait out a 429's Retry-After, or answer busy when they cannot wait that long", async () => {
    const bucket = `bo-${uid()}`;
    const rateLimit = { requests: 100, intervalMs: 1000, burst: 100 };
    const input = { type: "object", properties: { status: { type: "integer" }, retry: { type: "string" } } };
    const declared = (name: string, timeoutMs: number) => ({
      name,
      description: "Answers ?status",
      url: `${meter}/m/${bucket}`,
      input,
      rateLimit,
      timeoutMs,
      retry: { attempts: 1 },
    });
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`bo-${uid()}`, { http: [declared("patient", 5_000), declared("hasty", 400)] }),
    };

    const first = await callTools(env, ["patient", { status: 429, retry: "2" }]);
    expect(first.records[0].error).toMatchObject({ code: "upstream_error" });
    const hasty = await callTools(env, ["hasty", { status: 200 }]);
    expect(hasty.records[0].error).toMatchObject({
      code: "busy",
      message: expect.stringMatching(/rate limited; try again in [12] s/),
    });
    expect(await arrivals(bucket)).toHaveLength(1); // the busy caller never reached the upstream

    const patient = await callTools(env, ["patient", { status: 200 }]);
    expect(patient.records[0].status).toBe("succeeded");
    const [blocked, after] = await arrivals(bucket);
    expect(after! - blocked!).toBeGreaterThanOrEqual(1_950);
  });
});
