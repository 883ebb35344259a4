/** Tunables of a ledger shard, read from the Worker's vars (all optional). */
export interface LedgerSettings {
  /** A pending approval turns denied after this long. LEDGER_APPROVAL_TTL_SECONDS, default 24 h. */
  approvalTtlMs: number;
  /**
   * A call waiting for its caller's answers (an MCP task's input_required) ends timed_out
   * after this long. LEDGER_INPUT_TTL_SECONDS, default 1 h.
   */
  inputTtlMs: number;
  /** Finished records older than this are pruned. LEDGER_RETENTION_DAYS, default 30. */
  retentionMs: number;
  /** At most this many finished records per shard; the oldest go first. LEDGER_RETENTION_COUNT, default 100 000. */
  retentionCount: number;
  /** Events kept per shard for SSE resumption. LEDGER_EVENT_LIMIT, default 2 000. */
  eventLimit: number;
  /** Longest wait a request may ask for (?wait=, a duplicate joining a running call). Default 60 s. */
  maxWaitMs: number;
  /** How often the alarm prunes when nothing else is due. Default 1 h. */
  pruneIntervalMs: number;
}

export const DEFAULT_SETTINGS: LedgerSettings = Object.freeze({
  approvalTtlMs: 24 * 3600_000,
  inputTtlMs: 3600_000,
  retentionMs: 30 * 86_400_000,
  retentionCount: 100_000,
  eventLimit: 2_000,
  maxWaitMs: 60_000,
  pruneIntervalMs: 3600_000,
});

function positive(value: unknown, scale: number, fallback: number): number {
  const n = typeof value === "string" ? Number(value) : typeof value === "number" ? value : NaN;
  return Number.isFinite(n) && n > 0 ? n * scale : fallback;
}

export function settingsFromEnv(env: Record<string, unknown>): LedgerSettings {
  return {
    ...DEFAULT_SETTINGS,
    approvalTtlMs: positive(env.LEDGER_APPROVAL_TTL_SECONDS, 1000, DEFAULT_SETTINGS.approvalTtlMs),
    inputTtlMs: positive(env.LEDGER_INPUT_TTL_SECONDS, 1000, DEFAULT_SETTINGS.inputTtlMs),
    retentionMs: positive(env.LEDGER_RETENTION_DAYS, 86_400_000, DEFAULT_SETTINGS.retentionMs),
    retentionCount: Math.floor(positive(env.LEDGER_RETENTION_COUNT, 1, DEFAULT_SETTINGS.retentionCount)),
    eventLimit: Math.floor(positive(env.LEDGER_EVENT_LIMIT, 1, DEFAULT_SETTINGS.eventLimit)),
  };
}
