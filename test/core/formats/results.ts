import type { CallError, CallOutput, CallRecord, CallResult } from "../../../src/result";
import { statusForError } from "../../../src/result";

/** Hand-built CallResults for encoder tests (the pipeline is tested elsewhere). */
function record(callId: string, tool: string, status: CallRecord["status"], extra: Partial<CallRecord>): CallRecord {
  return {
    callId,
    tenant: "t",
    tool,
    source: "valibot",
    schemaHash: "h",
    validation: { ok: true },
    attempts: 1,
    startedAt: 0,
    durationMs: 1,
    status,
    ...extra,
  };
}

export function succeeded(callId: string, tool: string, output: CallOutput): CallResult {
  return { ok: true, callId, tool, output, record: record(callId, tool, "succeeded", { output }) };
}

export function failed(callId: string, tool: string, error: CallError): CallResult {
  return { ok: false, callId, tool, error, record: record(callId, tool, statusForError(error.code), { error }) };
}

export const PNG = "iVBORw0KGgo=";
export const textResult = (id: string) =>
  succeeded(id, "get_weather", { content: [{ type: "text", text: "Sunny, 21°C" }] });
export const jsonResult = (id: string) =>
  succeeded(id, "add", { content: [{ type: "text", text: '{"sum":3}' }], structured: { sum: 3 } });
export const imageResult = (id: string) =>
  succeeded(id, "chart", {
    content: [
      { type: "text", text: "Here is the chart" },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "resource_link", uri: "https://x.test/c.png", name: "chart.png" },
    ],
  });
export const errorResult = (id: string) =>
  failed(id, "add", { code: "invalid_arguments", message: 'b: Invalid type: Expected number but received "2"' });
