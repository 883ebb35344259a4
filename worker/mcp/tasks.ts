import * as v from "valibot";
import { toCallToolResult } from "../../src/formats/mcp";
import type { JsonValue } from "../../src/json";
import { RpcCode } from "../../src/mcp/errors";
import { resultOfRecord, type CallRecord } from "../../src/result";
import { callDurable } from "../durable/call";
import type { LedgerEntry } from "../ledger/types";
import type { RunnersAddress } from "../runner/address";
import { answerCall } from "../runner/answer";
import type { FollowTarget } from "./follow";
import { RpcFailure } from "./jsonrpc";

/**
 * The MCP tasks extension (io.modelcontextprotocol/tasks, 2026-07-28): a task *is* a call's ledger
 * record. Its id is the call id, its status the record's, and tasks/get and tasks/cancel read and
 * cancel that record on the tenant's ledger shard, so they work from any isolate, after the client
 * went away and after the objects restarted. Nothing of a task is kept in memory.
 */

/** A client polls a working task about this often (a hint; the record changes at most once a second for progress). */
export const TASK_POLL_INTERVAL_MS = 1_000;

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Where a client's tasks are: how long their records are kept, and the Runners that run them again once answered. */
export interface TaskHost {
  ttlMs: number;
  runners?: RunnersAddress;
}

function taskStatus(record: CallRecord): TaskStatus {
  switch (record.status) {
    case "running":
      return "working";
    case "pending":
    case "awaiting_input":
      return "input_required";
    case "cancelled":
      return "cancelled";
    case "unknown":
      return "failed";
    default:
      // A tool that ran and failed is a completed task whose result is an error; "failed" is for
      // what went wrong around the tool (the host, an internal error).
      return record.status === "failed" && record.error?.code === "internal" ? "failed" : "completed";
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The Task fields every task answer carries (CreateTaskResult, DetailedTask). */
function taskFields(record: CallRecord, createdAt: number, ttlMs: number): Record<string, unknown> {
  const status = taskStatus(record);
  const ended = status === "completed" || status === "failed" || status === "cancelled";
  const fields: Record<string, unknown> = {
    taskId: record.callId,
    status,
    createdAt: iso(createdAt),
    lastUpdatedAt: iso(ended ? record.startedAt + record.durationMs : record.startedAt),
    ttlMs,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
  if (record.status === "awaiting_input")
    fields.statusMessage = "Waiting for your input: answer its inputRequests with tasks/update, then the task runs on.";
  else if (record.status === "pending")
    fields.statusMessage = "Waiting for an approval: an admin decides (POST /v1/approvals/:id), then the task runs on.";
  else if (status === "working" && record.progress?.message) fields.statusMessage = record.progress.message;
  else if (status === "failed" || status === "cancelled") fields.statusMessage = record.error?.message;
  return fields;
}

/** The tools/call answer for a call that goes on as a task: its record is the first, so it starts now. */
export function createTaskResult(record: CallRecord, ttlMs: number): Record<string, unknown> {
  return { resultType: "task", ...taskFields(record, record.startedAt, ttlMs) };
}

/**
 * tasks/get's DetailedTask: a terminal task inlines its outcome (result, or error for a failed one).
 * createdAt is the entry's first acceptance, stable while record.startedAt moves with each run.
 */
export function detailedTask(
  { record, createdAt }: Pick<LedgerEntry, "record" | "createdAt">,
  ttlMs: number,
): Record<string, unknown> {
  const fields = taskFields(record, createdAt, ttlMs);
  // The open questions of a task waiting for its caller (answered ones are gone from the record).
  if (record.status === "awaiting_input") fields.inputRequests = record.error?.inputRequests ?? {};
  if (fields.status === "completed") fields.result = toCallToolResult(resultOfRecord(record));
  if (fields.status === "failed")
    fields.error = {
      code: RpcCode.internalError,
      message: record.error?.message ?? `The call ended ${record.status}.`,
    };
  return { resultType: "complete", ...fields };
}

const TaskParams = v.object({ taskId: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) });

function taskIdOf(method: string, params: unknown): string {
  const parsed = v.safeParse(TaskParams, params ?? {});
  if (!parsed.success) throw new RpcFailure(RpcCode.invalidParams, `${method}: params must hold taskId (a string).`);
  return parsed.output.taskId;
}

const UpdateParams = v.object({
  taskId: TaskParams.entries.taskId,
  inputResponses: v.record(v.string(), v.looseObject({})),
});

const unknownTask = (taskId: string) =>
  new RpcFailure(RpcCode.invalidParams, `Unknown task: ${JSON.stringify(taskId.slice(0, 100))}.`);

/** tasks/get: the record as the caller may see it, now. */
export async function getTask(params: unknown, target: FollowTarget, ttlMs: number): Promise<Record<string, unknown>> {
  const taskId = taskIdOf("tasks/get", params);
  const entry: LedgerEntry | null = await callDurable(
    () => target.ledger.for(taskId),
    (ledger) => ledger.get(taskId, target.viewer),
  );
  if (!entry) throw unknownTask(taskId);
  return detailedTask(entry, ttlMs);
}

/**
 * tasks/cancel: the record's cancel, as POST /v1/calls/:id/cancel does it (a running call is told
 * through its lease; a parked one ends at once). An ended task answers the same empty ack.
 */
export async function cancelTask(params: unknown, target: FollowTarget): Promise<Record<string, unknown>> {
  const taskId = taskIdOf("tasks/cancel", params);
  const outcome = await callDurable(
    () => target.ledger.for(taskId),
    (ledger) => ledger.cancel(taskId, target.viewer, "The MCP client cancelled the task."),
  );
  if (!outcome.ok && outcome.error === "not_found") throw unknownTask(taskId);
  if (outcome.ok && outcome.state === "cancelled") await target.cancelled?.(outcome.entry);
  return {};
}

/**
 * tasks/update: answers to a task's open inputRequests (worker/runner/answer.ts). Answers to keys that
 * are not open, and an update of a task that does not wait, are ignored, as the extension says. The
 * ack comes once the answers are stored (and, all answered, the run is handed on).
 */
export async function updateTask(
  params: unknown,
  target: FollowTarget,
  host: TaskHost,
): Promise<Record<string, unknown>> {
  const parsed = v.safeParse(UpdateParams, params ?? {});
  if (!parsed.success)
    throw new RpcFailure(
      RpcCode.invalidParams,
      "tasks/update: params must hold taskId (a string) and inputResponses (an object of objects).",
    );
  const { taskId, inputResponses } = parsed.output;
  const outcome = await answerCall(
    target.ledger,
    host.runners,
    taskId,
    target.viewer,
    inputResponses as Record<string, JsonValue>,
  );
  if (!outcome.ok && outcome.error === "not_found") throw unknownTask(taskId);
  if (!outcome.ok) throw new RpcFailure(RpcCode.invalidParams, `tasks/update: ${outcome.message}.`);
  return {};
}
