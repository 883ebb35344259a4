/**
 * SQLite persistence of one gate: a row per holder or waiter, plus a few settings. The gate DO keeps
 * the state in memory for speed and writes every transition's changes here in the same synchronous
 * step, so an evicted gate reloads exactly what it had admitted.
 */
import { createGateState } from "../../src/gates/queue";
import type { GateChange, GateState } from "../../src/gates/queue";
import type { GateRules } from "../../src/gates/rules";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS slots (
     call_id TEXT PRIMARY KEY,
     tool TEXT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('held', 'queued')),
     seq INTEGER NOT NULL,
     since INTEGER NOT NULL,
     expires_at INTEGER,
     lease_ms INTEGER NOT NULL,
     deadline INTEGER,
     rules TEXT,
     asked_at INTEGER
   )`,
  `CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`,
];

type SlotRow = {
  call_id: string;
  tool: string;
  state: string;
  seq: number;
  since: number;
  expires_at: number | null;
  lease_ms: number;
  deadline: number | null;
  /** The waiter's rules as JSON (waiters only). */
  rules: string | null;
  asked_at: number | null;
  /** Rows written before the rules were stored whole: the end of the waiter's longest wait. */
  max_wait_until?: number | null;
};

export function migrate(sql: SqlStorage): void {
  for (const statement of SCHEMA) sql.exec(statement);
  // Gates created before the rules were stored whole get the columns; their rows are read as they were.
  const columns = new Set(
    sql
      .exec<{ name: string }>("SELECT name FROM pragma_table_info('slots')")
      .toArray()
      .map((c) => c.name),
  );
  if (!columns.has("rules")) sql.exec("ALTER TABLE slots ADD COLUMN rules TEXT");
  if (!columns.has("asked_at")) sql.exec("ALTER TABLE slots ADD COLUMN asked_at INTEGER");
}

export function readMeta(sql: SqlStorage, key: string): string | undefined {
  return sql.exec<{ v: string }>("SELECT v FROM meta WHERE k = ?", key).toArray()[0]?.v;
}

export function writeMeta(sql: SqlStorage, key: string, value: string): void {
  sql.exec("INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v", key, value);
}

export function loadState(sql: SqlStorage): GateState {
  const state = createGateState(storedRules(sql));
  const rows = sql.exec<SlotRow>("SELECT * FROM slots ORDER BY state, seq, since").toArray();
  for (const row of rows) {
    if (row.state === "held") {
      state.holders.set(row.call_id, {
        callId: row.call_id,
        tool: row.tool,
        since: row.since,
        expiresAt: row.expires_at ?? row.since + row.lease_ms,
      });
    } else {
      state.waiters.push({
        callId: row.call_id,
        tool: row.tool,
        seq: row.seq,
        since: row.since,
        leaseMs: row.lease_ms,
        ...(row.deadline === null ? {} : { deadline: row.deadline }),
        ...waiterRules(row, state.rules.limit),
      });
    }
    state.nextSeq = Math.max(state.nextSeq, row.seq + 1);
  }
  return state;
}

/** The gate's rules: stored whole as JSON, or (gates from before) as the limit and maxQueue settings. */
function storedRules(sql: SqlStorage): GateRules {
  const json = readMeta(sql, "rules");
  if (json !== undefined) return JSON.parse(json) as GateRules;
  const maxQueue = readMeta(sql, "maxQueue");
  return {
    limit: Number(readMeta(sql, "limit") ?? 1),
    ...(maxQueue === undefined ? {} : { maxQueue: Number(maxQueue) }),
  };
}

/** A waiter's rules and first ask, from its row (rows from before: the longest wait they had). */
function waiterRules(row: SlotRow, limit: number): { rules: GateRules; askedAt: number } {
  if (row.rules !== null) return { rules: JSON.parse(row.rules) as GateRules, askedAt: row.asked_at ?? row.since };
  const end = row.max_wait_until ?? null;
  return { rules: { limit, ...(end === null ? {} : { maxWaitMs: Math.max(0, end - row.since) }) }, askedAt: row.since };
}

/**
 * Mirror one transition into SQL. Call inside transactionSync, with no await in between. `saved` is
 * the gate's rules as last written (JSON); returns them as they are now.
 */
export function persist(sql: SqlStorage, state: GateState, changes: GateChange[], saved: string): string {
  const rules = JSON.stringify(state.rules);
  if (rules !== saved) writeMeta(sql, "rules", rules);
  for (const change of changes) {
    if (change.type === "leave") {
      sql.exec("DELETE FROM slots WHERE call_id = ?", change.callId);
    } else if (change.type === "extend") {
      sql.exec("UPDATE slots SET expires_at = ? WHERE call_id = ?", change.holder.expiresAt, change.holder.callId);
    } else if (change.type === "hold") {
      const h = change.holder;
      sql.exec(
        `INSERT INTO slots (call_id, tool, state, seq, since, expires_at, lease_ms, deadline)
         VALUES (?, ?, 'held', 0, ?, ?, ?, NULL)
         ON CONFLICT (call_id) DO UPDATE SET state = 'held', since = excluded.since,
           expires_at = excluded.expires_at, lease_ms = excluded.lease_ms, deadline = NULL`,
        h.callId,
        h.tool,
        h.since,
        h.expiresAt,
        h.expiresAt - h.since,
      );
    } else {
      const w = change.waiter;
      sql.exec(
        `INSERT INTO slots (call_id, tool, state, seq, since, expires_at, lease_ms, deadline, rules, asked_at)
         VALUES (?, ?, 'queued', ?, ?, NULL, ?, ?, ?, ?)
         ON CONFLICT (call_id) DO UPDATE SET deadline = excluded.deadline`,
        w.callId,
        w.tool,
        w.seq,
        w.since,
        w.leaseMs,
        w.deadline ?? null,
        JSON.stringify(w.rules),
        w.askedAt,
      );
    }
  }
  return rules;
}
