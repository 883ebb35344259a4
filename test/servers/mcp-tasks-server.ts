import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A 2026-07-28 MCP server that answers tools/call with tasks (the io.modelcontextprotocol/tasks
 * extension: resultType "task", tasks/get, tasks/cancel), written by hand because the SDK v2 server
 * does not implement the extension. One tool, "report": { steps, outcome?: "complete" | "fail" |
 * "input" } — its task works for `steps` polls (status message "step i of n"), then ends as asked.
 * A client that does not declare the extension gets MissingRequiredClientCapability (-32021).
 */
export interface TasksTestServer {
  url: string;
  /** Every request's method and params. */
  requests: {
    method: string;
    params: Record<string, unknown>;
    headers: Record<string, string | string[] | undefined>;
  }[];
  /** Task ids the client cancelled with tasks/cancel. */
  cancelled: string[];
  close(): Promise<void>;
}

interface ServerTask {
  taskId: string;
  steps: number;
  polls: number;
  outcome: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
}

const VERSION = "2026-07-28";
const EXTENSION = "io.modelcontextprotocol/tasks";

export async function startTasksServer(): Promise<TasksTestServer> {
  const tasks = new Map<string, ServerTask>();
  const state: TasksTestServer = { url: "", requests: [], cancelled: [], close: async () => undefined };
  let next = 1;

  const view = (task: ServerTask) => {
    const base = {
      resultType: "complete",
      taskId: task.taskId,
      status: task.status,
      createdAt: "2026-01-01T00:00:00Z",
      lastUpdatedAt: "2026-01-01T00:00:00Z",
      ttlMs: 60_000,
      pollIntervalMs: 10,
    };
    if (task.status === "working") return { ...base, statusMessage: `step ${task.polls} of ${task.steps}` };
    if (task.status === "completed")
      return {
        ...base,
        result: {
          resultType: "complete",
          content: [{ type: "text", text: `report after ${task.steps} steps` }],
          structuredContent: { steps: task.steps },
        },
      };
    if (task.status === "failed") return { ...base, error: { code: -32603, message: "the report broke" } };
    if (task.status === "input_required")
      return {
        ...base,
        inputRequests: {
          confirm: {
            method: "elicitation/create",
            params: { mode: "form", message: "Go on?", requestedSchema: { type: "object", properties: {} } },
          },
        },
      };
    return base;
  };

  function handle(method: string, params: Record<string, unknown>, id: unknown): { status: number; body: unknown } {
    const ok = (result: unknown) => ({ status: 200, body: { jsonrpc: "2.0", id, result } });
    const fail = (status: number, code: number, message: string, data?: unknown) => ({
      status,
      body: { jsonrpc: "2.0", id, error: { code, message, ...(data ? { data } : {}) } },
    });
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    if (meta["io.modelcontextprotocol/protocolVersion"] !== VERSION)
      return fail(400, -32022, "Unsupported protocol version", { supported: [VERSION] });
    const capabilities = (meta["io.modelcontextprotocol/clientCapabilities"] ?? {}) as {
      extensions?: Record<string, unknown>;
    };
    switch (method) {
      case "server/discover":
        return ok({
          resultType: "complete",
          supportedVersions: [VERSION],
          capabilities: { tools: {}, extensions: { [EXTENSION]: {} } },
          ttlMs: 0,
          cacheScope: "private",
        });
      case "tools/list":
        return ok({
          resultType: "complete",
          ttlMs: 0,
          cacheScope: "private",
          tools: [
            {
              name: "report",
              description: "A report that takes a while",
              inputSchema: {
                type: "object",
                properties: { steps: { type: "integer" }, outcome: { enum: ["complete", "fail", "input"] } },
                required: ["steps"],
              },
            },
          ],
        });
      case "tools/call": {
        if (!capabilities.extensions?.[EXTENSION])
          return fail(400, -32021, "Missing required client capability", {
            requiredCapabilities: { extensions: { [EXTENSION]: {} } },
          });
        const args = params.arguments as { steps: number; outcome?: string };
        const task: ServerTask = {
          taskId: `task-${next++}`,
          steps: args.steps,
          polls: 0,
          outcome: args.outcome ?? "complete",
          status: "working",
        };
        tasks.set(task.taskId, task);
        return ok({ ...view(task), resultType: "task" });
      }
      case "tasks/get": {
        const task = tasks.get(String(params.taskId));
        if (!task) return fail(200, -32602, "Unknown task");
        if (task.status === "working" && ++task.polls >= task.steps)
          task.status = task.outcome === "fail" ? "failed" : task.outcome === "input" ? "input_required" : "completed";
        return ok(view(task));
      }
      case "tasks/cancel": {
        const task = tasks.get(String(params.taskId));
        if (!task) return fail(200, -32602, "Unknown task");
        state.cancelled.push(task.taskId);
        task.status = "cancelled";
        return ok({ resultType: "complete" });
      }
      default:
        return fail(404, -32601, `Method not found: ${method}`);
    }
  }

  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST") return void (res.writeHead(405), res.end());
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id?: unknown;
        method: string;
        params?: Record<string, unknown>;
      };
      state.requests.push({ method: message.method, params: message.params ?? {}, headers: req.headers });
      const { status, body } = handle(message.method, message.params ?? {}, message.id);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
