import type { CallRecord } from "../src/result";

/**
 * One structured line per event, as JSON text: Workers Logs reads its fields as it does a logged
 * object's, and a local runtime prints it on one line (an object it prints field by field, a line
 * each). Everything logged here is already masked (records by the pipeline, causes by the caller).
 */
export function logLine(fields: Record<string, unknown>): void {
  console.log(JSON.stringify(fields));
}

/**
 * The one log line per call: who (the key's name, the user's id: never their name or email), what
 * happened; never the arguments or the output.
 */
export function logCall(requestId: string, record: CallRecord, keyName?: string, userId?: string): void {
  logLine({
    msg: "call",
    requestId,
    ...(keyName === undefined ? {} : { key: keyName }),
    ...(userId === undefined ? {} : { user: userId }),
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
