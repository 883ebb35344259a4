import type { JsonValue } from "./json";
import type { CallRecord } from "./result";
import type { Progress } from "./tool";

/** Lifecycle events. Masked before they are emitted. */
export type CallEvent =
  | {
      type: "call.started";
      at: number;
      callId: string;
      tenant: string;
      tool: string;
      args?: JsonValue;
      attempt: number;
    }
  | { type: "call.progress"; at: number; callId: string; tenant: string; tool: string; progress: Progress }
  | { type: "call.finished"; at: number; callId: string; tenant: string; tool: string; record: CallRecord }
  | { type: "approval.requested"; at: number; callId: string; tenant: string; tool: string; record: CallRecord };
