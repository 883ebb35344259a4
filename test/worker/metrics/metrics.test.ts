import { describe, expect, it } from "vitest";
import type { MetricsSummary } from "../../../src/contract/metrics";
import { CALL_KEY_HASH, json, request, tenantConfig } from "../helpers/requests";
import { uid } from "../helpers/ledger";

/** Calls of a tenant of its own (its metrics are its alone), with the call key ("k") and an admin key ("a"). */
function tenant() {
  const config = tenantConfig({
    name: `metrics-${uid()}`,
    tools: ["add", "fail", "echo"],
    keys: [
      { name: "k", hash: CALL_KEY_HASH, scopes: ["call"] },
      { name: "a", hash: "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9", scopes: ["admin"] },
    ],
    policies: { add: { concurrency: { limit: 2 } } },
    requireApprovalFor: { tools: ["echo"] },
  });
  const env = { TOOLGATE_CONFIG: config, TOOLGATE_DEMO: "false" };
  const call = (name: string, args: unknown) =>
    request("/v1/calls/openai", {
      env,
      body: [{ id: `c-${uid()}`, type: "function", function: { name, arguments: JSON.stringify(args) } }],
    });
  const metrics = async (range = "hour") =>
    json<MetricsSummary>(await request(`/v1/metrics?range=${range}`, { env, key: "dev-admin-key" }));
  return { env, call, metrics };
}

describe("GET /v1/metrics", () => {
  it("rolls up calls per tool and per gate as they end: counts, failures by code, latency, approvals", async () => {
    const { call, metrics } = tenant();
    for (let i = 0; i < 5; i++) expect((await call("add", { a: i, b: 1 })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call("fail", { message: "no" })).status).toBe(200);
    expect((await call("add", { a: "not a number" })).status).toBe(200); // rejected: a code, not a failure
    expect((await call("echo", { text: "wait" })).status).toBe(200); // parked for approval
    expect((await call("nope", {})).status).toBe(200); // an unknown tool: not counted

    const summary = await metrics();
    expect(summary).toMatchObject({ range: "hour", stepMs: 60_000, approvalsPending: 1 });
    expect(summary.steps).toHaveLength(60);
    const byTool = Object.fromEntries(summary.tools.map((tool) => [tool.tool, tool]));
    expect(Object.keys(byTool).sort()).toEqual(["add", "echo", "fail"]);
    expect(byTool.add).toMatchObject({ calls: 6, errors: 0, errorCodes: { invalid_arguments: 1 } });
    expect(byTool.fail).toMatchObject({ calls: 2, errors: 2, errorCodes: { tool_error: 2 } });
    expect(byTool.echo).toMatchObject({ calls: 0, approvals: 1, approvalsPending: 1 });
    // The busiest first; every step's calls add up to the range's.
    expect(summary.tools[0]!.tool).toBe("add");
    expect(summary.steps.reduce((sum, step) => sum + step.calls, 0)).toBe(8);
    expect(summary.steps.reduce((sum, step) => sum + step.errors, 0)).toBe(2);
    const { latency } = byTool.add!;
    expect(latency.p50).not.toBeNull();
    expect(latency.p50! <= latency.p95! && latency.p95! <= latency.p99! && latency.p99! <= latency.maxMs!).toBe(true);
    // The gate of add: the five valid calls asked it for a slot (the rejected one never got there); the
    // wait is the gate's answer (an RPC to its object), each call's own.
    expect(summary.gates).toEqual([expect.objectContaining({ gate: "tool:add", calls: 5, busy: 0 })]);
    expect(summary.gates[0]!.wait.p50).toBeGreaterThanOrEqual(0);
    expect(summary.gates[0]!.wait.maxMs).toBeGreaterThanOrEqual(summary.gates[0]!.wait.p99!);
  });

  it("reads a day and a week in wider steps, and refuses other ranges and non-admins", async () => {
    const { env, call, metrics } = tenant();
    await call("add", { a: 1, b: 2 });
    const day = await metrics("day");
    expect(day.stepMs).toBe(15 * 60_000);
    expect(day.steps).toHaveLength(96);
    const week = await metrics("week");
    expect(week.stepMs).toBe(3_600_000);
    expect(week.steps).toHaveLength(168);
    expect(week.tools.map((tool) => [tool.tool, tool.calls])).toEqual([["add", 1]]);
    // Every step starts on its step's boundary, and the rows land in them.
    for (const summary of [day, week]) {
      expect(summary.steps.every((step) => step.at % summary.stepMs === 0)).toBe(true);
      expect(summary.steps.reduce((sum, step) => sum + step.calls, 0)).toBe(1);
      expect(summary.tools[0]!.steps.map((step) => step.at % summary.stepMs)).toEqual([0]);
    }
    const bad = await request("/v1/metrics?range=year", { env, key: "dev-admin-key" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "invalid_query" } });
    expect((await request("/v1/metrics", { env })).status).toBe(403);
  });
});
