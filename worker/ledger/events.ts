import type { JsonValue } from "../../src/json";
import type { CallRecord } from "../../src/result";
import { fitRecord } from "./records";
import type { RecentEvent, StoredEvent, Viewer } from "./types";
import { sees, viewerSql, type CallWho } from "./viewer";

/** Events carry records cut to this size: a live feed, not the archive (GET /v1/calls/:id has it all). */
const EVENT_RECORD_CAP = 8_000;

export type LedgerEventType =
  | "call.started"
  | "call.progress"
  | "call.input_required"
  | "call.finished"
  | "approval.requested"
  | "approval.decided"
  | "gate.changed";

/** A record as events show it: already masked by the pipeline, cut to a bounded size. */
export function eventRecord(record: CallRecord): JsonValue {
  const fitted = fitRecord(record, EVENT_RECORD_CAP);
  // Within the cap the record is its own event form (JSON drops its undefined fields alike).
  return fitted.truncated ? (JSON.parse(fitted.json) as JsonValue) : (record as unknown as JsonValue);
}

/**
 * The common head of call events; `who` names the key whose call it is and the user it is for (the
 * viewers they make see the event). The user shows as id and name: an event is a live feed, not the record.
 */
export function callEvent(
  type: LedgerEventType,
  record: CallRecord,
  who: CallWho,
  at: number,
  extra: Record<string, JsonValue> = {},
): Record<string, JsonValue> {
  const { key, user } = who;
  return {
    type,
    at,
    callId: record.callId,
    tenant: record.tenant,
    tool: record.tool,
    ...(key === null ? {} : { key }),
    ...(user ? { user: user.name === undefined ? { id: user.id } : { id: user.id, name: user.name } } : {}),
    ...extra,
  };
}

/**
 * Appends to the shard's event log; ids increase and survive eviction (AUTOINCREMENT never reuses
 * an id). Every 64th append drops what lies beyond the last `limit` events. data.key (a call's key
 * name) and data.user.id decide who may read it; events without either (gate.changed) are for admins.
 */
export function appendEvent(sql: SqlStorage, data: Record<string, JsonValue>, limit: number): number {
  const type = typeof data.type === "string" ? data.type : "event";
  const key = typeof data.key === "string" ? data.key : null;
  const user = data.user as { id?: unknown } | undefined;
  const userId = typeof user?.id === "string" ? user.id : null;
  return appendEventRows(sql, [{ type, key, userId, json: JSON.stringify(data) }], limit);
}

/** An event already serialised: its type, the key and user id that may read it, its JSON. */
export interface EventRow {
  type: string;
  key: string | null;
  userId: string | null;
  json: string;
}

const INSERT_EVENTS = [
  "",
  "INSERT INTO events (type, data, key_name, user_id) VALUES (?, ?, ?, ?) RETURNING id",
  "INSERT INTO events (type, data, key_name, user_id) VALUES (?, ?, ?, ?), (?, ?, ?, ?) RETURNING id",
];

/** Appends events in one statement (in order, as appendEvent each would); answers the last id. */
export function appendEventRows(sql: SqlStorage, rows: readonly EventRow[], limit: number): number {
  const statement =
    INSERT_EVENTS[rows.length] ??
    `INSERT INTO events (type, data, key_name, user_id) VALUES ${rows.map(() => "(?, ?, ?, ?)").join(", ")} ` +
      "RETURNING id";
  const bind: (string | null)[] = [];
  for (const row of rows) bind.push(row.type, row.json, row.key, row.userId);
  let last = 0;
  let prune = false;
  for (const { id } of sql.exec<{ id: number }>(statement, ...bind)) {
    last = Math.max(last, id);
    prune ||= id % 64 === 0;
  }
  if (prune) sql.exec("DELETE FROM events WHERE id <= ?", last - limit);
  return last;
}

/**
 * The JSON of callEvent(type, record, key, at, { [name]: <value> }) from the value's JSON, so a record
 * serialised for its row is not serialised again for its event.
 */
export function callEventJson(
  type: LedgerEventType,
  record: CallRecord,
  who: CallWho,
  at: number,
  tail: string,
): string {
  const head = JSON.stringify(callEvent(type, record, who, at));
  return `${head.slice(0, -1)},${tail}}`;
}

/** The JSON of eventRecord(record), given the JSON its row holds (the same text when it is within the event cap). */
export function eventRecordJson(record: CallRecord, row: { json: string; truncated: boolean }): string {
  return !row.truncated && row.json.length <= EVENT_RECORD_CAP ? row.json : fitRecord(record, EVENT_RECORD_CAP).json;
}

/**
 * Up to `limit` events after `after`, of which the viewer gets those it may see. `scanned` is the
 * last id looked at, so a reader skips another key's events instead of reading them again.
 */
export function readEvents(
  sql: SqlStorage,
  after: number,
  limit: number,
  viewer: Viewer,
): { events: StoredEvent[]; scanned: number } {
  const rows = sql
    .exec<{ id: number; type: string; data: string; key_name: string | null; user_id: string | null }>(
      "SELECT id, type, data, key_name, user_id FROM events WHERE id > ? ORDER BY id LIMIT ?",
      after,
      limit,
    )
    .toArray();
  const events = rows
    .filter((row) => sees(viewer, row.key_name, row.user_id))
    .map((row) => ({ id: row.id, type: row.type, data: JSON.parse(row.data) as JsonValue }));
  return { events, scanned: rows.at(-1)?.id ?? after };
}

/**
 * The newest `count` events the viewer may see, newest first: each one's id and `at` (its time, 0 when
 * it has none), so a stream can start just before them (see worker/routes/event-recent.ts).
 */
export function recentEventTimes(sql: SqlStorage, count: number, viewer: Viewer): RecentEvent[] {
  const visible = viewerSql(viewer);
  return sql
    .exec<{ id: number; at: SqlStorageValue }>(
      `SELECT id, json_extract(data, '$.at') AS at FROM events
       WHERE ${visible.where} ORDER BY id DESC LIMIT ?`,
      ...visible.bind,
      count,
    )
    .toArray()
    .map(({ id, at }) => ({ id, at: typeof at === "number" && Number.isFinite(at) ? at : 0 }));
}

export function lastEventId(sql: SqlStorage): number {
  return sql.exec<{ id: number | null }>("SELECT max(id) AS id FROM events").one().id ?? 0;
}
