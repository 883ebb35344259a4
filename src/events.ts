import type { JsonValue } from "./json";
import type { ErrorCode } from "./errors";
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
  | { type: "approval.requested"; at: number; callId: string; tenant: string; tool: string; record: CallRecord }
  | {
      /** A gated call got its slot (granted) or gave up (busy, cancelled); it asked for it at `since`. */
      type: "gate.decided";
      at: number;
      callId: string;
      tenant: string;
      tool: string;
      gate: string;
      since: number;
      granted: boolean;
    }
  | {
      /** One attempt ended: without error when it succeeded. */
      type: "attempt.finished";
      at: number;
      callId: string;
      tenant: string;
      tool: string;
      attempt: number;
      error?: ErrorCode;
    };
