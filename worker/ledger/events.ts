import type { JsonValue } from "../../src/json";
import type { CallRecord } from "../../src/result";
import { fitRecord } from "./records";
import type { StoredEvent, Viewer } from "./types";

/** Events carry records cut to this size: a live feed, not the archive (GET /v1/calls/:id has it all). */
const EVENT_RECORD_CAP = 8_000;

export type LedgerEventType = "call.started" | "call.progress" | "call.input_required" | "call.finished" | "approval.requested" | "approval.decided" | "gate.changed";

/** A record as events show it: already masked by the pipeline, cut to a bounded size. */
export function eventRecord(record: CallRecord): JsonValue {
  const fitted = fitRecord(record, EVENT_RECORD_CAP);
  // Within the cap the record is its own event form (JSON drops its undefined fields alike).
  return fitted.truncated ? (JSON.parse(fitted.json) as JsonValue) : (record as unknown as JsonValue);
}

/** The common head of call events; `key` names the key whose call it is (it sees the event). */
export function callEvent(
  type: LedgerEventType,
  record: CallRecord,
  key: string | null,
  at: number,
  extra: Record<string, JsonValue> = {},
): Record<string, JsonValue> {
  return { type, at, callId: record.callId, tenant: record.tenant, tool: record.tool, ...(key === null ? {} : { key }), ...extra };
}

/**
 * Appends to the shard's event log; ids increase and survive eviction (AUTOINCREMENT never reuses
 * an id). Every 64th append drops what lies beyond the last `limit` events. data.key (a call's key
 * name) decides who may read it; events without one (gate.changed) are for admins.
 */
export function appendEvent(sql: SqlStorage, data: Record<string, JsonValue>, limit: number): number {
  const type = typeof data.type === "string" ? data.type : "event";
  const key = typeof data.key === "string" ? data.key : null;
  const id = sql
    .exec<{ id: number }>("INSERT INTO events (type, data, key_name) VALUES (?, ?, ?) RETURNING id", type, JSON.stringify(data), key)
    .one().id;
  if (id % 64 === 0) sql.exec("DELETE FROM events WHERE id <= ?", id - limit);
  return id;
}

/**
 * Up to `limit` events after `after`, of which the viewer gets those it may see. `scanned` is the
 * last id looked at, so a reader skips another key's events instead of reading them again.
 */
export function readEvents(sql: SqlStorage, after: number, limit: number, viewer: Viewer): { events: StoredEvent[]; scanned: number } {
  const rows = sql
    .exec<{ id: number; type: string; data: string; key_name: string | null }>(
      "SELECT id, type, data, key_name FROM events WHERE id > ? ORDER BY id LIMIT ?",
      after,
      limit,
    )
    .toArray();
  const events = rows
    .filter((row) => viewer === null || row.key_name === viewer)
    .map((row) => ({ id: row.id, type: row.type, data: JSON.parse(row.data) as JsonValue }));
  return { events, scanned: rows.at(-1)?.id ?? after };
}

export function lastEventId(sql: SqlStorage): number {
  return sql.exec<{ id: number | null }>("SELECT max(id) AS id FROM events").one().id ?? 0;
}
