import { toolError } from "../../errors";
import { isPlainObject } from "../../json";
import type { McpClient } from "./client";
import { rpcFailure, type McpCallContext, type RpcError } from "./wire";

/**
 * toolgate as the requestor of a task-augmented tools/call: it polls the task until it ends and
 * answers its result, so the caller sees one call. Both shapes are spoken: 2025-11-25 tasks
 * (`task` in the request, CreateTaskResult `{ task }`, tasks/get, the result from tasks/result) and
 * the 2026-07-28 tasks extension (the server answers `resultType: "task"`, tasks/get carries the
 * result or error inline). The call's timeout and cancellation end the wait with tasks/cancel; a
 * task that asks for input is cancelled too, with a clear error (toolgate has no user or model to
 * ask on a remote server's behalf).
 */

export interface TaskState {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollMs?: number;
  result?: unknown;
  error?: RpcError;
}

interface TaskApi {
  get(taskId: string, ctx: McpCallContext): Promise<TaskState>;
  /** The result of a completed (or failed) task, as tools/call would have answered it. */
  outcome(task: TaskState, ctx: McpCallContext): Promise<unknown>;
  cancel(taskId: string, ctx: McpCallContext): Promise<unknown>;
}

/** Shortest and longest wait between polls, whatever the server suggests. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 5_000;
/** What toolgate asks a 2025 server to keep a task for (it polls it to the end at once). */
export const TASK_TTL_MS = 10 * 60_000;

/** A task as either era sends it, or undefined when it is not one. */
export function taskStateOf(raw: unknown): TaskState | undefined {
  if (!isPlainObject(raw) || typeof raw.taskId !== "string" || typeof raw.status !== "string") return undefined;
  const poll = raw.pollIntervalMs ?? raw.pollInterval;
  return {
    taskId: raw.taskId,
    status: raw.status,
    ...(typeof raw.statusMessage === "string" ? { statusMessage: raw.statusMessage } : {}),
    ...(typeof poll === "number" ? { pollMs: poll } : {}),
    ...("result" in raw ? { result: raw.result } : {}),
    ...(isPlainObject(raw.error) ? { error: raw.error } : {}),
  };
}

function state(raw: unknown, label: string, method: string): TaskState {
  const task = taskStateOf(raw);
  if (!task) throw toolError("upstream_error", `${label} answered ${method} with no task`, { retryable: false });
  return task;
}

/** Polls go without a progress token: the task's status messages are the progress. */
const quiet = (ctx: McpCallContext): McpCallContext => ({ fetch: ctx.fetch, signal: ctx.signal, secrets: ctx.secrets });

export function legacyTasks(client: McpClient, label: string): TaskApi {
  return {
    get: async (taskId, ctx) => state(await client.request("tasks/get", { taskId }, quiet(ctx)), label, "tasks/get"),
    outcome: (task, ctx) => client.request("tasks/result", { taskId: task.taskId }, quiet(ctx)),
    cancel: (taskId, ctx) => client.request("tasks/cancel", { taskId }, ctx),
  };
}

export function modernTasks(client: McpClient, label: string): TaskApi {
  return {
    get: async (taskId, ctx) => state(await client.request("tasks/get", { taskId }, quiet(ctx)), label, "tasks/get"),
    async outcome(task) {
      if (task.status === "failed") throw rpcFailure(label, "tools/call (as a task)", task.error);
      return task.result;
    },
    cancel: (taskId, ctx) => client.request("tasks/cancel", { taskId }, ctx),
  };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", stop, { once: true });
  });
}

/** Poll a task to its end; its status messages are reported as progress. */
export async function awaitTask(
  api: TaskApi,
  first: TaskState,
  ctx: McpCallContext,
  label: string,
  tool: string,
): Promise<unknown> {
  let task = first;
  let step = 0;
  let shown = "";
  const cancel = () =>
    api.cancel(task.taskId, { ...quiet(ctx), signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
  const onAbort = () => void cancel();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const note = task.statusMessage ?? task.status;
      if (note !== shown) ctx.progress?.({ progress: ++step, message: (shown = note) });
      if (task.status === "completed" || task.status === "failed") return await api.outcome(task, ctx);
      if (task.status === "cancelled") {
        throw toolError(
          "upstream_error",
          `${label} cancelled the task running "${tool}"${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
          { retryable: false },
        );
      }
      if (task.status === "input_required") {
        await cancel();
        throw toolError(
          "upstream_error",
          `${label} asked for input during "${tool}" (its task is input_required), ` +
            `which toolgate cannot give a remote server; the task was cancelled`,
          {
            retryable: false,
          },
        );
      }
      await pause(Math.min(Math.max(task.pollMs ?? 1_000, MIN_POLL_MS), MAX_POLL_MS), ctx.signal);
      task = await api.get(task.taskId, ctx);
    }
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
