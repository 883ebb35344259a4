import type { CallRecord } from "../src/result";

/**
 * One structured line per event. Workers Logs indexes the fields of a logged object; everything
 * logged here is already masked (records are masked by the pipeline, causes by the caller).
 */
export function logLine(fields: Record<string, unknown>): void {
  console.log(fields);
}

/** The one log line per call: who, what happened; never the arguments or the output. */
export function logCall(requestId: string, record: CallRecord, keyName?: string): void {
  logLine({
    msg: "call",
    requestId,
    ...(keyName === undefined ? {} : { key: keyName }),
    tenant: record.tenant,
    callId: record.callId,
    tool: record.tool,
    status: record.status,
    ...(record.error ? { code: record.error.code, error: record.error.message } : {}),
    permission: record.permission,
    attempts: record.attempts,
    durationMs: record.durationMs,
    ...(record.replay ? { replay: true } : {}),
  });
}
