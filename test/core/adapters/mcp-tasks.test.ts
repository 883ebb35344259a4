import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTasksServer, type TasksTestServer } from "../../servers/mcp-tasks-server";
import { callTool, remote, until } from "./mcp-helpers";

/** toolgate as the requestor of 2026-07-28 tasks (the io.modelcontextprotocol/tasks extension). */

let server: TasksTestServer;
beforeAll(async () => void (server = await startTasksServer()));
afterAll(() => server.close());

const report = async (args: unknown, over = {}) =>
  callTool(await remote(server.url, over).source.tools(), "r_report", args, server.url);

describe("a 2026-07-28 server that answers with tasks", () => {
  it("polls the task to its end and answers its result; status messages are progress", async () => {
    const { result, progress } = await report({ steps: 3 });
    expect(result.ok && result.output).toMatchObject({
      content: [{ type: "text", text: "report after 3 steps" }],
      structured: { steps: 3 },
    });
    expect(progress).toEqual([
      { progress: 1, message: "step 0 of 3" },
      { progress: 2, message: "step 1 of 3" },
      { progress: 3, message: "step 2 of 3" },
      { progress: 4, message: "completed" },
    ]);
    const get = server.requests.find((r) => r.method === "tasks/get")!;
    expect(get.headers).toMatchObject({ "mcp-method": "tasks/get", "mcp-name": get.params.taskId });
  });

  it("a failed task is an upstream_error with the task's JSON-RPC error", async () => {
    const { result } = await report({ steps: 1, outcome: "fail" });
    expect(!result.ok && result.error).toMatchObject({
      code: "upstream_error",
      message: expect.stringContaining("JSON-RPC error -32603: the report broke"),
    });
  });

  it("a task that asks for input is cancelled, with a clear error", async () => {
    const { result } = await report({ steps: 1, outcome: "input" });
    expect(!result.ok && result.error.message).toContain(
      'asked for input during "report" (its task is input_required), ' +
        "which toolgate cannot give a remote server; the task was cancelled",
    );
    const last = server.requests.filter((r) => r.method === "tools/call").length;
    expect(server.cancelled).toContain(`task-${last}`);
  });

  it("the call's timeout cancels the task with tasks/cancel", async () => {
    const { result } = await report({ steps: 1_000_000 }, { timeoutMs: 200 });
    expect(!result.ok && result.error.code).toBe("timeout");
    const id = `task-${server.requests.filter((r) => r.method === "tools/call").length}`;
    await until(() => server.cancelled.includes(id));
  });
});
