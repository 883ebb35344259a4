import { outputText, truncationNote } from "../../src/budget";
import { TERMINAL_STATUSES, type CallOutput, type CallRecord, type CallStatus } from "../../src/result";
import type { CallSurface } from "../../src/contract/surface";
import type { UserRef } from "../../src/contract/users";
import { deleteBlobs, readBlob, readBlobRange, writeBlob } from "./blobs";
import type { ApprovalState, LedgerEntry, ListQuery, ResultPage, Viewer } from "./types";
import { sees, type CallWho } from "./viewer";

/** A stored record stays under this many characters of JSON; the rest of a large output goes to blobs. */
export const RECORD_CAP = 64_000;
const PREVIEW_CHARS = 4_000;
const ARGS_PREVIEW = 2_000;

export const TERMINAL: ReadonlySet<CallStatus> = new Set(TERMINAL_STATUSES);
export const TERMINAL_SQL = `(${[...TERMINAL].map((status) => `'${status}'`).join(",")})`;

export type CallRow = {
  call_id: string;
  tool: string;
  args_hash: string;
  status: CallStatus;
  started_at: number;
  /** The first record's startedAt; null for rows older than the column. */
  created_at: number | null;
  deadline: number | null;
  owner: string | null;
  cancel_requested: number;
  approval: ApprovalState | null;
  approval_reason: string | null;
  decided_at: number | null;
  record: string;
  truncated: number;
  result_chars: number | null;
  key_name: string | null;
  surface: CallSurface | null;
  /** The id of the user the call was made for, and the UserRef as JSON; null: none (or an older row). */
  user_id: string | null;
  user: string | null;
  /** Who decided its approval: `user:<id>` or `key:<name>`; null when undecided, expired, or older. */
  decided_by: string | null;
  /** 1: the metrics hold this call's end already (the alarm's guess of unknown, before a re-run); else null. */
  counted: number | null;
};

export function readRow(sql: SqlStorage, callId: string): CallRow | undefined {
  return sql.exec<CallRow>("SELECT * FROM calls WHERE call_id = ?", callId).toArray()[0];
}

/** The row if the viewer may see it: another key's call reads as absent (no hint that it exists). */
export function readVisibleRow(sql: SqlStorage, callId: string, viewer: Viewer): CallRow | undefined {
  const row = readRow(sql, callId);
  return row && sees(viewer, row.key_name, row.user_id) ? row : undefined;
}

/** Who the row's call was made for: its key and user, as its events and taken-id checks need them. */
export function whoOf(row: CallRow): CallWho {
  return { key: row.key_name, user: row.user === null ? null : (JSON.parse(row.user) as UserRef) };
}

export function toEntry(row: CallRow): LedgerEntry {
  const record = JSON.parse(row.record) as CallRecord;
  record.status = row.status;
  const approval = row.approval
    ? {
        state: row.approval,
        ...(row.approval_reason === null ? {} : { reason: row.approval_reason }),
        ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
        ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
        ...(row.approval === "requested" && row.deadline !== null ? { expiresAt: row.deadline } : {}),
      }
    : null;
  return {
    record,
    truncated: row.truncated === 1,
    resultChars: row.result_chars,
    createdAt: row.created_at ?? record.startedAt,
    approval,
    cancelRequested: row.cancel_requested === 1,
    key: row.key_name,
    surface: row.surface ?? null,
    ...(row.user === null ? {} : { user: JSON.parse(row.user) as UserRef }),
  };
}

/** The record with its full output (read back from blobs when the row holds a preview): what a replay returns. */
export function fullRecord(sql: SqlStorage, row: CallRow): CallRecord {
  const record = toEntry(row).record;
  if (row.truncated === 1) {
    const output = readBlob(sql, row.call_id, "output");
    if (output !== undefined) record.output = JSON.parse(output) as CallOutput;
  }
  return record;
}

/** Cuts a record to about `cap` characters of JSON. Returns that form and, when cut, the full output. */
export function fitRecord(
  record: CallRecord,
  cap = RECORD_CAP,
): { json: string; truncated: boolean; full?: CallOutput } {
  const json = JSON.stringify(record);
  if (json.length <= cap) return { json, truncated: false };
  const copy: CallRecord = { ...record };
  if (copy.output) {
    const text = outputText(copy.output);
    const preview = text.slice(0, PREVIEW_CHARS);
    copy.output = {
      content: [
        { type: "text", text: preview },
        { type: "text", text: truncationNote(copy.callId, preview.length, text.length) },
      ],
      truncated: true,
    };
  }
  const args = JSON.stringify(copy.args ?? null);
  if (args.length > ARGS_PREVIEW)
    copy.args = `${args.slice(0, ARGS_PREVIEW)}… [arguments truncated: ${args.length} characters]`;
  if (copy.error) {
    copy.error = { ...copy.error, message: copy.error.message.slice(0, PREVIEW_CHARS) };
    if (copy.error.issues) copy.error.issues = copy.error.issues.slice(0, 20);
  }
  return record.output
    ? { json: JSON.stringify(copy), truncated: true, full: record.output }
    : { json: JSON.stringify(copy), truncated: true };
}

/** Writes the record into the row (status, record JSON, output blobs). The row must exist. */
export function storeRecord(sql: SqlStorage, record: CallRecord, now: number): void {
  deleteBlobs(sql, record.callId, "output", "text");
  const fitted = fitAndSpill(sql, record);
  // started_at follows record.startedAt (an approved or re-run call starts again): listings sort and
  // page by the record's value, so a stale column would repeat or skip rows and loop the cursor.
  sql.exec(
    `UPDATE calls SET status = ?, started_at = ?, record = ?, truncated = ?, result_chars = ?, updated_at = ?
     WHERE call_id = ?`,
    record.status,
    record.startedAt,
    fitted.json,
    fitted.truncated ? 1 : 0,
    resultChars(record),
    now,
    record.callId,
  );
}

type RowFields = {
  argsHash: string;
  deadline: number | null;
  owner: string | null;
  approval: ApprovalState | null;
  key: string | null;
  /** The user the call is made for (storedUser: the UserRef alone); null: none. */
  user: UserRef | null;
  surface: CallSurface | null;
};

const INSERT_ROW = `INSERT INTO calls (call_id, tool, args_hash, status, started_at, created_at, updated_at, deadline,
       owner, approval, key_name, user_id, user, surface, record, truncated, result_chars)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Inserts a new row with its record in one statement. A new id has no blobs: retention deletes a
 * pruned row's blobs with it. Answers the record's JSON as the row holds it (events reuse it).
 */
export function insertRow(
  sql: SqlStorage,
  record: CallRecord,
  fields: RowFields,
  now: number,
): { json: string; truncated: boolean } {
  // A plain INSERT throws on an id that has a row: it always writes when it answers.
  return insertRowIfNew(sql, record, fields, now, INSERT_ROW)!;
}

/**
 * The same insert when the id has no row yet, in the one statement that also looks for the row (a
 * new record is the common case); undefined, with nothing written, when the id has one.
 */
export function insertNewRow(
  sql: SqlStorage,
  record: CallRecord,
  fields: RowFields,
  now: number,
): { json: string; truncated: boolean } | undefined {
  return insertRowIfNew(sql, record, fields, now, `${INSERT_ROW} ON CONFLICT (call_id) DO NOTHING`);
}

function insertRowIfNew(
  sql: SqlStorage,
  record: CallRecord,
  fields: RowFields,
  now: number,
  statement: string,
): { json: string; truncated: boolean } | undefined {
  const fitted = fitRecord(record);
  const cursor = sql.exec(
    statement,
    record.callId,
    record.tool,
    fields.argsHash,
    record.status,
    record.startedAt,
    record.startedAt,
    now,
    fields.deadline,
    fields.owner,
    fields.approval,
    fields.key,
    fields.user?.id ?? null,
    fields.user === null ? null : JSON.stringify(fields.user),
    fields.surface,
    fitted.json,
    fitted.truncated ? 1 : 0,
    resultChars(record),
  );
  if (cursor.rowsWritten === 0) return undefined;
  spill(sql, record.callId, fitted);
  return fitted;
}

/** The record's JSON for the row; a cut output's full form goes to blobs (the row keeps a preview). */
function fitAndSpill(sql: SqlStorage, record: CallRecord): { json: string; truncated: boolean } {
  const fitted = fitRecord(record);
  spill(sql, record.callId, fitted);
  return fitted;
}

function spill(sql: SqlStorage, callId: string, fitted: { full?: CallOutput }): void {
  if (!fitted.full) return;
  writeBlob(sql, callId, "output", JSON.stringify(fitted.full));
  writeBlob(sql, callId, "text", outputText(fitted.full));
}

const resultChars = (record: CallRecord): number | null => (record.output ? outputText(record.output).length : null);

/** Above every character a call id can hold: `prefix + ID_END` bounds the ids starting with prefix. */
const ID_END = "\u{10FFFF}";

/**
 * Newest first by (startedAt, callId), filtered; the keyset cursor makes pages stable under inserts.
 * Every filter is an equality or a range on an indexed column (tool, status, key, user, surface, the id's
 * primary key, the time), and LIMIT bounds what one page reads.
 */
export function listRows(sql: SqlStorage, query: ListQuery): CallRow[] {
  const where: string[] = [];
  const bind: (string | number)[] = [];
  if (query.viewer?.key !== undefined) where.push("key_name = ?"), bind.push(query.viewer.key);
  if (query.viewer?.user !== undefined) where.push("user_id = ?"), bind.push(query.viewer.user);
  if (query.key !== undefined) where.push("key_name = ?"), bind.push(query.key);
  if (query.user !== undefined) where.push("user_id = ?"), bind.push(query.user);
  if (query.tool !== undefined) where.push("tool = ?"), bind.push(query.tool);
  if (query.status !== undefined) where.push("status = ?"), bind.push(query.status);
  if (query.surface !== undefined) where.push("surface = ?"), bind.push(query.surface);
  if (query.callIdPrefix !== undefined)
    where.push("call_id >= ? AND call_id < ?"), bind.push(query.callIdPrefix, query.callIdPrefix + ID_END);
  if (query.awaitingApproval) where.push("status = 'pending' AND approval = 'requested'");
  if (query.since !== undefined) where.push("started_at >= ?"), bind.push(query.since);
  if (query.until !== undefined) where.push("started_at <= ?"), bind.push(query.until);
  if (query.before) {
    where.push("(started_at < ? OR (started_at = ? AND call_id < ?))");
    bind.push(query.before.startedAt, query.before.startedAt, query.before.callId);
  }
  const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
  return sql
    .exec<CallRow>(`SELECT * FROM calls ${clause} ORDER BY started_at DESC, call_id DESC LIMIT ?`, ...bind, query.limit)
    .toArray();
}

/** A page of the full output text, from blobs when the row holds a preview. */
export function resultPage(sql: SqlStorage, row: CallRow, offset: number, limit: number): ResultPage | undefined {
  if (row.result_chars === null) return undefined;
  const total = row.result_chars;
  const start = Math.min(Math.max(0, offset), total);
  const text =
    row.truncated === 1
      ? readBlobRange(sql, row.call_id, "text", start, limit)
      : outputText((JSON.parse(row.record) as CallRecord).output ?? { content: [] }).slice(start, start + limit);
  const end = start + text.length;
  return { callId: row.call_id, offset: start, limit, total, text, nextOffset: end < total ? end : null };
}
