import { describe, expect, it } from "vitest";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";
import { connect } from "../helpers/mcp";

/**
 * Remote MCP servers of both eras in a tenant, through POST /v1/calls/* and toolgate's own /mcp:
 * the reference server (2025-11-25, with a tool that must run as a task), the SDK v2 server
 * (2026-07-28, and 2025 only), and a 2026 server that answers with tasks.
 */

const tenant = (mcp: Record<string, unknown>[]) => ({ TOOLGATE_CONFIG: adapterConfig(`eras-${uid()}`, { mcp }) });
const reference = () => tenant([{ name: "ev", url: upstreams.reference, prefix: "ev_" }]);

/** Every tool the reference server offers toolgate, with arguments. */
const REFERENCE_CALLS: [string, unknown][] = [
  ["echo", { message: "hi" }],
  ["get-annotated-message", { messageType: "error", includeImage: false }],
  ["get-env", {}],
  ["get-resource-links", { count: 2 }],
  ["get-resource-reference", { resourceType: "Blob", resourceId: 2 }],
  ["get-structured-content", { location: "New York" }],
  ["get-sum", { a: 2, b: 3 }],
  ["get-tiny-image", {}],
  ["gzip-file-as-resource", { name: "a.gz", data: "data:text/plain;base64,aGVsbG8=" }],
  ["toggle-simulated-logging", {}],
  ["toggle-subscriber-updates", {}],
  ["trigger-long-running-operation", { duration: 0.2, steps: 2 }],
  ["simulate-research-query", { topic: "tides" }],
];

describe("the reference server in a tenant", () => {
  it("runs every tool it offers through /v1/calls, the task-only one as a task; content annotations reach the record", async () => {
    const env = reference();
    const { records } = await callTools(
      env,
      ...REFERENCE_CALLS.map(([name, args]): [string, unknown] => [`ev_${name}`, args]),
    );
    for (const record of records) expect(record, record.tool).toMatchObject({ status: "succeeded" });
    expect(records[1].output.content).toEqual([
      { type: "text", text: "Error: Operation failed", annotations: { priority: 1, audience: ["user", "assistant"] } },
    ]);
    expect(records.at(-1).output.content[0].text).toContain("# Research Report: tides");
    // Progress comes from the task's status messages as toolgate's polls see them: a slow poll can miss
    // the last stage, so the record holds the latest stage seen, numbered as the server's stages are.
    const stages = ["Gathering sources", "Analyzing content", "Synthesizing findings", "Generating report"];
    const { progress } = records.at(-1);
    expect(progress.message).toMatch(new RegExp(`^(${stages.join("|")})`));
    expect(progress.progress).toBe(stages.findIndex((stage) => progress.message.startsWith(stage)) + 1);
  });

  it("serves its tools on toolgate's /mcp: listing with the server's annotations where policy is silent, calls with annotated content", async () => {
    const env = reference();
    const { client } = await connect({ vars: env });
    const { tools } = await client.listTools();
    const listed = tools.filter((t) => t.name.startsWith("ev_"));
    expect(listed.map((t) => t.name).sort()).toEqual(REFERENCE_CALLS.map(([name]) => `ev_${name}`).sort());
    expect(listed.find((t) => t.name === "ev_get-sum")).toMatchObject({
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    for (const [name, args] of REFERENCE_CALLS) {
      const result = await client.callTool({ name: `ev_${name}`, arguments: args as Record<string, unknown> });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    }
    const annotated = await client.callTool({ name: "ev_get-annotated-message", arguments: { messageType: "debug" } });
    expect(annotated.content).toEqual([
      {
        type: "text",
        text: "Debug: Cache hit ratio 0.95, latency 150ms",
        annotations: { priority: 0.3, audience: ["assistant"] },
      },
    ]);
    await client.close();
  });

  it("the tenant's policy wins over the server's hints in the listing", async () => {
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`eras-${uid()}`, {
        mcp: [
          { name: "ev", url: upstreams.reference, prefix: "ev_", tools: ["get-sum"], risk: "high", readOnly: false },
        ],
      }),
    };
    const { client } = await connect({ vars: env });
    const sum = (await client.listTools()).tools.find((t) => t.name === "ev_get-sum");
    expect(sum?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    await client.close();
  });
});

describe("the SDK v2 server in a tenant", () => {
  it.each(["dual", "modern", "legacy"] as const)(
    "%s: calls work, content annotations are kept, and a tool that needs sampling answers a clear error",
    async (era) => {
      const env = tenant([{ name: "v2", url: upstreams.v2[era], prefix: "v2_", timeoutMs: 10_000 }]);
      const { records } = await callTools(
        env,
        ["v2_add", { a: 2, b: 3 }],
        ["v2_annotated", {}],
        ["v2_region", { region: "eu", query: "q" }],
        ["v2_two_rounds", {}],
        ["v2_summarise", { text: "x" }],
      );
      expect(records[0]).toMatchObject({ status: "succeeded", output: { structured: { sum: 5 } } });
      expect(records[1].output.content[0]).toEqual({
        type: "text",
        text: "for the user",
        annotations: { audience: ["user"], priority: 0.9 },
      });
      expect(records[2]).toMatchObject({
        status: "succeeded",
        output: { content: [{ type: "text", text: "q in eu" }] },
      });
      expect(records[4]).toMatchObject({
        status: "failed",
        error: { code: expect.stringMatching(/upstream_error|tool_error/) },
      });
      expect(records[4].error.message).toMatch(/sampling/);
      if (era !== "legacy")
        expect(records[3]).toMatchObject({
          status: "succeeded",
          output: { content: [{ type: "text", text: "finished with round-2" }] },
        });
    },
  );
});

describe("a 2026-07-28 server that answers with tasks", () => {
  it("is polled to the end by toolgate, as one call", async () => {
    const env = tenant([{ name: "tk", url: upstreams.tasks, prefix: "tk_" }]);
    const { records } = await callTools(
      env,
      ["tk_report", { steps: 2 }],
      ["tk_report", { steps: 1, outcome: "input" }],
    );
    expect(records[0]).toMatchObject({ status: "succeeded", output: { structured: { steps: 2 } } });
    expect(records[1]).toMatchObject({
      status: "failed",
      error: { message: expect.stringMatching(/asked for input .* the task was cancelled/) },
    });
  });
});
