export interface GateSnapshot {
  gate: string;
  limit: number;
  maxQueue: number;
  holders: { callId: string; tool: string; since: number; expiresAt: number }[];
  queueDepth: number;
  queued: { callId: string; tool: string; since: number }[];
}

export interface GatePage {
  gates: GateSnapshot[];
  next?: string;
}
