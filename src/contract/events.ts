import type { JsonValue } from "../json";

/** `ready`: the stream knows where it starts; every event after it arrives (sent first, and on each reconnect). */
export type ServerEventType =
  | "ready"
  | "call.started"
  | "call.progress"
  | "call.input_required"
  | "call.finished"
  | "approval.requested"
  | "approval.decided"
  | "gate.changed";

/** One event of GET /v1/events: its SSE id (resume with it) and its JSON data. */
export interface ServerEvent {
  id?: string;
  type: ServerEventType | (string & {});
  data: { type?: string; at?: number; callId?: string; tool?: string; [key: string]: JsonValue | undefined };
}
