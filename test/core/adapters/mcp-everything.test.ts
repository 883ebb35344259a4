import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knownEras } from "../../../src/adapters/mcp/era";
import { mcp as mcpFormat } from "../../../src/formats/mcp";
import type { Tool } from "../../../src/tool";
import { startEverything, type EverythingServer } from "../../servers/everything";
import { callTool, remote } from "./mcp-helpers";

/**
 * Every tool of the MCP reference server (@modelcontextprotocol/server-everything, a 2025-11-25
 * server) through the adapter and the pipeline. The tools it offers only to clients that declare
 * sampling, elicitation or roots are not offered to toolgate, which declares none.
 */

let server: EverythingServer;
let tools: Tool[];
const call = (name: string, args: unknown) => callTool(tools, `r_${name}`, args, server.url);

beforeAll(async () => {
  server = await startEverything();
  const started = await fetch(`${server.control}/start`, { method: "POST" });
  if (!started.ok) throw new Error(await started.text());
  tools = await remote(server.url).source.tools();
});
afterAll(() => server.close());

describe("the MCP reference server", () => {
  it("is a 2025 server: the probe falls back to initialize; its task-only tool is listed", () => {
    expect(knownEras.get(server.url)).toEqual({ kind: "legacy" });
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "echo",
        "get-annotated-message",
        "get-env",
        "get-resource-links",
        "get-resource-reference",
        "get-structured-content",
        "get-sum",
        "get-tiny-image",
        "gzip-file-as-resource",
        "simulate-research-query",
        "toggle-simulated-logging",
        "toggle-subscriber-updates",
        "trigger-long-running-operation",
      ]
        .map((name) => `r_${name}`)
        .sort(),
    );
  });

  it("runs every tool it offers", async () => {
    const answers = {
      echo: await call("echo", { message: "hi" }),
      sum: await call("get-sum", { a: 2, b: 3 }),
      env: await call("get-env", {}),
      links: await call("get-resource-links", { count: 2 }),
      reference: await call("get-resource-reference", { resourceType: "Text", resourceId: 1 }),
      structured: await call("get-structured-content", { location: "Chicago" }),
      image: await call("get-tiny-image", {}),
      gzip: await call("gzip-file-as-resource", { name: "hello.txt.gz", data: "data:text/plain;base64,aGVsbG8=" }),
      logging: await call("toggle-simulated-logging", {}),
      updates: await call("toggle-subscriber-updates", {}),
      long: await call("trigger-long-running-operation", { duration: 0.2, steps: 2 }),
    };
    for (const [name, { result }] of Object.entries(answers))
      expect(result.ok, `${name}: ${JSON.stringify(!result.ok && result.error)}`).toBe(true);
    const output = (name: keyof typeof answers) => {
      const { result } = answers[name];
      if (!result.ok) throw new Error(name);
      return result.output;
    };
    expect(output("echo").content).toEqual([{ type: "text", text: "Echo: hi" }]);
    expect(output("sum").content[0]).toMatchObject({ type: "text", text: expect.stringContaining("5") });
    expect(output("links").content.filter((c) => c.type === "resource_link")).toHaveLength(2);
    expect(output("reference").content.some((c) => c.type === "resource")).toBe(true);
    expect(output("structured").structured).toMatchObject({ temperature: expect.any(Number) });
    expect(output("image").content.some((c) => c.type === "image" && c.mimeType === "image/png")).toBe(true);
    expect(answers.long.progress.map((p) => p.progress)).toEqual([1, 2]);
  });

  it("calls the tool that must run as a task as a task, reporting its status messages as progress", async () => {
    const { result, progress } = await call("simulate-research-query", { topic: "tides" });
    expect(result.ok && result.output.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("# Research Report: tides"),
    });
    // Progress is the task's status messages as toolgate's polls see them: a poll made late on a loaded
    // machine can miss a stage, so the messages are some of the server's stages, in its order.
    const stages = ["Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."];
    const seen = progress.map((p) => p.message);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.map((message) => stages.indexOf(message ?? ""))).toEqual(
      stages.map((_, i) => i).filter((i) => seen.includes(stages[i])),
    );
  });

  it("keeps content annotations, and shows the server's tool annotations where the policy is silent", async () => {
    const { result } = await call("get-annotated-message", { messageType: "success", includeImage: true });
    expect(result.ok && result.output.content).toEqual([
      { type: "text", text: "Operation completed successfully", annotations: { priority: 0.7, audience: ["user"] } },
      {
        type: "image",
        data: expect.any(String),
        mimeType: "image/png",
        annotations: { priority: 0.5, audience: ["user"] },
      },
    ]);
    const tool = tools.find((t) => t.name === "r_get-annotated-message")!;
    expect(tool.policy).toEqual({});
    expect(mcpFormat.toolDefinition(tool)).toMatchObject({
      title: "Get Annotated Message Tool",
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
  });
});
