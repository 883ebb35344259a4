import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as v from "valibot";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * A task that asks, under `wrangler dev` (workerd, real Durable Objects and sockets), followed by the
 * official v2 client pinned to 2026-07-28 and declaring the tasks extension: tasks/get shows its
 * question, tasks/update answers it, and the task completes with the answer. The v2 client (2.4.0) has
 * no task runtime: it refuses any tools/call result whose resultType is "task" (UnsupportedResultType),
 * so the task is created by a plain POST carrying the same envelope, and followed with the client,
 * which sends the extension's methods as requests of their own.
 */

const TASKS = "io.modelcontextprotocol/tasks";
const KEY = "task-input-test-key";

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

let server: DevServer;
beforeAll(async () => {
  const config = {
    name: "taskinput",
    tools: ["confirm_delete", "slow_compute"],
    keys: [{ name: "test", hash: await sha256Hex(KEY), scopes: ["call"] }],
  };
  server = await startDevServer({
    entrypoint: "test/fixtures/worker.ts",
    vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" },
  });
}, 120_000);
afterAll(() => server?.stop());

// The client takes resultType off a complete result before it validates the rest.
const Task = v.looseObject({
  resultType: v.optional(v.string()),
  taskId: v.optional(v.string()),
  status: v.optional(v.string()),
});
type TaskResult = v.InferOutput<typeof Task> & Record<string, any>;

async function connect(): Promise<Client> {
  const client = new Client(
    { name: "toolgate-task-input-test", version: "1.0.0" },
    {
      capabilities: { elicitation: {}, extensions: { [TASKS]: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${KEY}` } },
    }),
  );
  return client;
}

const send = (client: Client, method: string, params: Record<string, unknown>) =>
  client.request({ method, params } as never, Task) as Promise<TaskResult>;

/** tools/call as a 2026-07-28 client declaring the tasks extension (and elicitation) sends it. */
async function createTask(name: string, args: Record<string, unknown>): Promise<TaskResult> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [TASKS]: {} } },
  };
  const res = await fetch(`${server.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${KEY}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, _meta: meta },
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: TaskResult }).result;
}

async function until(client: Client, taskId: string, status: string): Promise<TaskResult> {
  for (let i = 0; ; i++) {
    const task = await send(client, "tasks/get", { taskId });
    if (task.status === status) return task;
    if (i > 600) throw new Error(`the task did not become ${status} (it is ${task.status})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("a task that asks: the v2 client sees input_required with the question, answers with tasks/update from a new connection, and the task completes with the answer", async () => {
  const created = await createTask("confirm_delete", { filename: "report.txt" });
  const first = await connect();
  expect(created).toMatchObject({ resultType: "task", status: "working" });
  const taskId = created.taskId!;
  const waiting = await until(first, taskId, "input_required");
  expect(waiting.inputRequests).toMatchObject({
    confirm_delete: { method: "elicitation/create", params: { message: "Delete report.txt?" } },
  });
  await first.close();

  // The client went away and came back: a new connection carries on with the task id alone.
  const again = await connect();
  const ack = await send(again, "tasks/update", {
    taskId,
    inputResponses: { confirm_delete: { action: "accept", content: { confirm: true } } },
  });
  expect(ack).not.toHaveProperty("status");
  const done = await until(again, taskId, "completed");
  expect(done.result).toMatchObject({ content: [{ type: "text", text: "Deleted report.txt." }] });
  await again.close();
}, 60_000);

it("a plain detached task (no input) runs to completed through the v2 client", async () => {
  const created = await createTask("slow_compute", { seconds: 1, label: "plain" });
  const client = await connect();
  expect(created).toMatchObject({ resultType: "task", status: "working" });
  const done = await until(client, created.taskId!, "completed");
  expect(done.result).toMatchObject({ content: [{ type: "text", text: "Computed plain after 1 s." }] });
  await client.close();
}, 60_000);
