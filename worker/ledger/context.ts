import type { JsonValue } from "../../src/json";
import type { LedgerSettings } from "./settings";
import type { Waiters } from "./waiters";
import type { EventRow } from "./events";

/** What the ledger's parts share: storage, settings, wake-ups and the two side effects of a write. */
export interface ShardContext {
  readonly sql: SqlStorage;
  readonly settings: LedgerSettings;
  readonly waiters: Waiters;
  now(): number;
  /** Append to the event log (in the caller's transaction) and wake SSE readers. */
  emit(data: Record<string, JsonValue>): void;
  /** emit() of events already serialised, in one statement (a write's started and finished events). */
  emitRows(rows: readonly EventRow[]): void;
  /** Make sure the alarm fires by `at` (a lease or approval deadline). */
  wakeBy(at: number): void;
}
