import { describe, expect, it } from "vitest";
import { json, request } from "../helpers/requests";

const uid = () => crypto.randomUUID().slice(0, 8);

/** Run calls through the Anthropic shape (arguments as objects) and return the records. */
async function run(...calls: [name: string, input: unknown][]) {
  const id = uid();
  const content = calls.map(([name, input], i) => ({ type: "tool_use", id: `${name}-${i}-${id}`, name, input }));
  const res = await request("/v1/calls/anthropic", { body: { type: "message", role: "assistant", content } });
  expect(res.status).toBe(200);
  return (await json(res)).calls as any[];
}

/** Most sleeps running at one instant (checked at every start, where the count can peak). */
const peak = (spans: { startedAt: number; endedAt: number }[]) =>
  Math.max(...spans.map(({ startedAt: t }) => spans.filter((s) => s.startedAt <= t && t < s.endedAt).length));

describe("demo tools", () => {
  it("add returns a structured sum; echo returns its text", async () => {
    const [add, echo] = await run(["add", { a: 2.5, b: 4 }], ["echo", { text: "ping" }]);
    expect(add.output).toEqual({ content: [{ type: "text", text: '{"sum":6.5}' }], structured: { sum: 6.5 } });
    expect(echo.output.content).toEqual([{ type: "text", text: "ping" }]);
  });

  it("sleep reports when it actually slept, and refuses more than 30 s", async () => {
    const [slept, tooLong] = await run(["sleep", { ms: 20 }], ["sleep_pool", { ms: 30_001 }]);
    const { ms, startedAt, endedAt } = slept.output.structured;
    expect(ms).toBe(20);
    expect(endedAt - startedAt).toBeGreaterThanOrEqual(20);
    expect(tooLong.error.code).toBe("invalid_arguments");
  });

  it("sleep runs one at a time across the tenant (limit 1)", async () => {
    const records = await run(["sleep", { ms: 40 }], ["sleep", { ms: 40 }], ["sleep", { ms: 40 }]);
    expect(peak(records.map((r) => r.output.structured))).toBe(1);
  });

  it("sleep_pool runs at most three at once (limit 3)", async () => {
    const records = await run(...Array.from({ length: 5 }, () => ["sleep_pool", { ms: 60 }] as [string, unknown]));
    const spans = records.map((r) => r.output.structured);
    expect(peak(spans)).toBeLessThanOrEqual(3);
    // And it did run in parallel (overlapping spans), without a wall-clock bound a loaded machine breaks.
    expect(peak(spans)).toBeGreaterThan(1);
  });

  it("send_message needs approval; fail fails; flaky succeeds after retries", async () => {
    const [send, fail, flaky] = await run(
      ["send_message", { to: "ann", text: "hi" }],
      ["fail", { message: "nope" }],
      ["flaky", { failures: 2 }],
    );
    expect(send.status).toBe("pending");
    expect(fail.error).toMatchObject({ code: "tool_error", message: "nope" });
    expect(flaky).toMatchObject({ status: "succeeded", attempts: 3, output: { structured: { attempt: 3 } } });
  });
});
