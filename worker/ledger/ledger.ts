import { DurableObject } from "cloudflare:workers";
import type { JsonValue } from "../../src/json";
import type { CallRecord, Progress } from "../../src/result";
import type { CallSurface } from "../../src/contract/surface";
import type { UserRef } from "../../src/contract/users";
import { cancel, decide } from "./approvals";
import {
  allAnswered,
  answerAsk,
  askKey,
  cancelAsks,
  cancelAsksWithPrefix,
  closeAsks,
  openAsks,
  readAsks,
  startRound,
  type AskAnswerOutcome,
  type AskState,
} from "./asks";
import { answerInput } from "./inputs";
import { applyWrite, claim, commit, complete, noteProgress, recordUnclaimed, renew, watchState } from "./claims";
import type { ShardContext } from "./context";
import { appendEvent, appendEventRows, lastEventId, readEvents, recentEventTimes } from "./events";
import { fullRecord, listRows, readRow, readVisibleRow, resultPage, TERMINAL, toEntry } from "./records";
import { exportSlot, type MetricsShard } from "./metrics-export";
import { readyTenant } from "../tenant/ready";
import { sweep } from "./retention";
import {
  cancelRunningWithPrefix,
  readSession,
  writeSessionEnded,
  writeSessionLevel,
  type McpSessionState,
} from "./sessions";
import { migrate } from "./schema";
import { readOrMakeSecret } from "./secrets";
import { transact } from "../durable/transact";
import { settingsFromEnv, type LedgerSettings } from "./settings";
import { insertRefusal, shardName, spanOf, type Moved, type ShardGuard, type ShardMap } from "./shard-map";
import { readSeal, strandedRows, writeSeal } from "./shard-seal";
import {
  changeShards,
  dropOldVersions,
  publishedMap,
  type ChangeOutcome,
  type DropOutcome,
  type MapHolder,
  type ShardCalls,
} from "./map-holder";
import { checkToken, issueToken } from "./tokens";
import type {
  AnswerOutcome,
  BeginInput,
  BeginOutcome,
  CommitInput,
  CancelOutcome,
  DecideOutcome,
  Decider,
  Decision,
  EventBatch,
  LedgerEntry,
  LedgerWrite,
  ListQuery,
  RecentEvents,
  ResultPage,
  Viewer,
  WatchOutcome,
  WriteOutcome,
} from "./types";
import type { ShardMetrics } from "../telemetry/lazy/metrics-read";
import { telemetryLibrary } from "../telemetry-library";
import { callKey, EVENTS_KEY, Waiters } from "./waiters";

/**
 * One shard of a tenant's call ledger (SQLite storage): records, idempotency by call id, approvals,
 * cancellation flags and the event log. RPC methods answer expected outcomes as values and throw only
 * on bugs. The logic lives in the small modules beside it; this class wires storage, time and the alarm.
 */
export class Ledger extends DurableObject<Env> {
  settings: LedgerSettings;
  private readonly waiters = new Waiters();
  private readonly shard: ShardContext;
  /** When the alarm is set for; undefined until read back from storage. */
  private alarmAt: number | null | undefined;
  /** The lowest map version this shard takes new ids from (shard-seal.ts); undefined until read. */
  private sealedBelow: number | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.settings = settingsFromEnv(env as unknown as Record<string, unknown>);
    migrate(ctx.storage);
    const self = this;
    this.shard = {
      sql: ctx.storage.sql,
      get settings() {
        return self.settings;
      },
      waiters: this.waiters,
      now: () => Date.now(),
      emit: (data) => {
        appendEvent(ctx.storage.sql, data, self.settings.eventLimit);
        self.waiters.notify(EVENTS_KEY);
      },
      emitRows: (rows) => {
        appendEventRows(ctx.storage.sql, rows, self.settings.eventLimit);
        self.waiters.notify(EVENTS_KEY);
      },
      wakeBy: (at) => self.wakeBy(at),
    };
    void ctx.blockConcurrencyWhile(async () => {
      this.alarmAt = await ctx.storage.getAlarm();
    });
  }

  async begin(input: BeginInput, at?: ShardGuard): Promise<BeginOutcome | Moved> {
    const moved = this.refusal(input.callId, at);
    if (moved) return moved;
    const first = this.transact(() => claim(this.shard, input));
    return first.kind === "wait" ? this.join(input.callId, input.joinMs) : first;
  }

  /** A read-only call's terminal record whose claim was deferred: begin and complete in one write. */
  async commit(input: CommitInput, at?: ShardGuard): Promise<BeginOutcome | Moved> {
    const moved = this.refusal(input.record.callId, at);
    if (moved) return moved;
    this.prunesLater();
    const first = this.transact(() => commit(this.shard, input));
    return first.kind === "wait" ? this.join(input.record.callId, input.joinMs) : first;
  }

  /**
   * A group of writes from one isolate (the journal gathers a shard's concurrent writes), applied in
   * order, each its own check-and-write: one round trip and one storage commit for all of them, in one
   * transaction. A write that throws rolls that back; the group then runs again, each write in a
   * transaction of its own, so that only the write that throws fails.
   */
  writeMany(writes: LedgerWrite[]): WriteOutcome[] {
    if (writes.some((write) => write.op !== "begin")) this.prunesLater();
    if (writes.length > 1) {
      try {
        return this.ctx.storage.transactionSync(() => writes.map((write) => this.applyPlaced(write)));
      } catch {
        this.alarmAt = undefined; // as transact() does after a rollback
      }
    }
    return writes.map((write) => {
      try {
        return this.transact(() => this.applyPlaced(write));
      } catch (error) {
        return { kind: "error", message: error instanceof Error ? error.message : String(error) };
      }
    });
  }

  /** One write of a group, unless the shard refuses the id it would insert (see refusal). */
  private applyPlaced(write: LedgerWrite): WriteOutcome {
    if (write.op !== "complete") {
      const moved = this.refusal(insertedId(write), write.at);
      if (moved) return moved;
    }
    return applyWrite(this.shard, write);
  }

  /** A duplicate of a running call joins it, bounded; its outcome is the answer. */
  private async join(callId: string, joinMs: number | undefined): Promise<BeginOutcome> {
    const until = Date.now() + Math.min(joinMs ?? this.settings.maxWaitMs, this.settings.maxWaitMs);
    const row = await this.waitTerminal(callId, until);
    if (row && TERMINAL.has(row.status)) return { kind: "replay", record: fullRecord(this.ctx.storage.sql, row) };
    const message =
      `The call ${callId} is still running (started by an earlier request with the same id). ` +
      `Its outcome will be recorded once: read it with GET /v1/calls/${callId}?wait=30 instead of calling again.`;
    return { kind: "conflict", message };
  }

  complete(owner: string, record: CallRecord): boolean {
    this.prunesLater();
    return this.transact(() => complete(this.shard, owner, record));
  }

  /** A call that ended before claiming its id, made with the key named `key` (for `user`) through `surface`. */
  record(
    record: CallRecord,
    key: string | null,
    surface: CallSurface | null = null,
    at?: ShardGuard,
    user: UserRef | null = null,
  ): boolean | Moved {
    const moved = this.refusal(record.callId, at);
    if (moved) return moved;
    this.prunesLater();
    return this.transact(() => recordUnclaimed(this.shard, record, key, surface, user));
  }

  /**
   * Renews a running call's lease, then waits (a third of the lease at most) for a cancel request or
   * the call's end. cancelSeen: the watcher already knows of the cancel, so only renew and wait.
   */
  async watch(callId: string, owner: string, leaseMs: number, cancelSeen = false): Promise<WatchOutcome> {
    const first = renew(this.shard, callId, owner, leaseMs);
    if (first.done || (first.cancel && !cancelSeen)) return first;
    await this.waiters.wait(callKey(callId), Math.min(leaseMs / 3, 20_000));
    return watchState(readRow(this.ctx.storage.sql, callId), owner);
  }

  /**
   * A call that waited at a gate asks this as its slot comes, before it starts: renews the lease and
   * answers whether a cancel was requested. The shard runs one request at a time, so a cancel that
   * was accepted (answered) before this is always seen here.
   */
  confirmStart(callId: string, owner: string, leaseMs: number): WatchOutcome {
    return renew(this.shard, callId, owner, leaseMs);
  }

  /** The latest progress of the owner's running call (its journal sends at most about one a second). */
  progress(callId: string, owner: string, progress: Progress): boolean {
    return this.transact(() => noteProgress(this.shard, callId, owner, progress));
  }

  /** One call the viewer may see; with waitMs, waits (bounded) until it is terminal. */
  async get(callId: string, viewer: Viewer, waitMs = 0): Promise<LedgerEntry | null> {
    if (!readVisibleRow(this.ctx.storage.sql, callId, viewer)) return null;
    const until = Date.now() + Math.min(waitMs, this.settings.maxWaitMs);
    const row = await this.waitTerminal(callId, until);
    return row ? toEntry(row) : null;
  }

  /** This shard's per-minute metrics from `from` to `to` (ms), summed into steps of `stepMs` (metrics.ts). */
  async metrics(from: number, to: number, stepMs: number): Promise<ShardMetrics> {
    // Reading them is the telemetry library's (loaded on first use): the bundle only writes them.
    const { metricsIn } = await telemetryLibrary();
    return metricsIn(this.ctx.storage.sql, from, to, stepMs);
  }

  list(query: ListQuery): LedgerEntry[] {
    return listRows(this.ctx.storage.sql, query).map(toEntry);
  }

  result(callId: string, viewer: Viewer, offset: number, limit: number): ResultPage | "not_found" | "no_output" {
    const row = readVisibleRow(this.ctx.storage.sql, callId, viewer);
    if (!row) return "not_found";
    return resultPage(this.ctx.storage.sql, row, offset, limit) ?? "no_output";
  }

  decide(callId: string, decision: Decision, reason: string | undefined, leaseMs: number, by?: Decider): DecideOutcome {
    return this.transact(() => decide(this.shard, callId, decision, reason, leaseMs, by));
  }

  /** Answers to a waiting call's questions (tasks/update); all answered, it runs again (inputs.ts). */
  answer(callId: string, viewer: Viewer, responses: Record<string, JsonValue>, leaseMs: number): AnswerOutcome {
    return this.transact(() => answerInput(this.shard, callId, viewer, responses, leaseMs));
  }

  cancel(callId: string, viewer: Viewer, reason?: string): CancelOutcome {
    return this.transact(() => cancel(this.shard, callId, viewer, reason));
  }

  /**
   * Events the viewer may see after `after` (-1: none, just the current position), waiting up to
   * waitMs for the first. `last` moves past other keys' events too, so they are never read again.
   */
  async events(after: number, waitMs: number, viewer: Viewer, limit = 200): Promise<EventBatch> {
    const sql = this.ctx.storage.sql;
    const last = lastEventId(sql);
    if (after < 0) return { events: [], last };
    let from = Math.min(after, last); // a cursor from a wiped shard resumes from its start
    const until = Date.now() + Math.min(waitMs, this.settings.maxWaitMs);
    for (;;) {
      const batch = readEvents(sql, from, limit, viewer);
      const moved = batch.scanned !== from;
      from = batch.scanned;
      if (batch.events.length > 0 || Date.now() >= until) return { events: batch.events, last: from };
      // Nothing new at all: sleep until the next append (or the end of the wait).
      if (!moved && !(await this.waiters.wait(EVENTS_KEY, until - Date.now()))) return { events: [], last: from };
    }
  }

  /** The newest `count` events the viewer may see (newest first, by id and time) and the newest id of all. */
  recentEvents(count: number, viewer: Viewer): RecentEvents {
    const sql = this.ctx.storage.sql;
    return { events: recentEventTimes(sql, count, viewer), last: lastEventId(sql) };
  }

  /** A legacy MCP session's log level and whether it was deleted (sessions.ts). */
  mcpSession(ref: string): McpSessionState {
    return readSession(this.ctx.storage.sql, ref);
  }

  setMcpSessionLevel(ref: string, level: string, expiresAt: number): void {
    this.transact(() => writeSessionLevel(this.ctx.storage.sql, ref, level, expiresAt));
    this.wakeBy(expiresAt);
  }

  /** DELETE of a session: its id is refused from now on (its calls are cancelled by cancelCallsWithPrefix). */
  endMcpSession(ref: string, expiresAt: number): void {
    this.transact(() => writeSessionEnded(this.ctx.storage.sql, ref, expiresAt));
    this.wakeBy(expiresAt);
  }

  /**
   * Requests the cancel of the viewer's running calls whose ids start with `prefix` (a session's
   * calls), and of their questions.
   */
  cancelCallsWithPrefix(prefix: string, viewer: Viewer, reason: string): string[] {
    return this.transact(() => {
      cancelAsksWithPrefix(this.shard, prefix, reason);
      return cancelRunningWithPrefix(this.shard, prefix, viewer, reason);
    });
  }

  /** A legacy MCP call's round asks its client (asks.ts): answers the cancel that came first, or null. */
  openAsks(callId: string, roundCallId: string, askIds: string[], expiresAt: number): string | null {
    const cancelled = this.transact(() => openAsks(this.ctx.storage.sql, callId, roundCallId, askIds, expiresAt));
    this.wakeBy(expiresAt);
    return cancelled;
  }

  /** The client's response to one of the call's questions, from whichever isolate received it. */
  answerAsk(callId: string, askId: string, response: string): AskAnswerOutcome {
    return this.transact(() => answerAsk(this.shard, callId, askId, response));
  }

  /**
   * Waits (bounded) until every question of the call is answered or the call is cancelled. All
   * answered, the call goes on as `nextRoundCallId` (a cancel reaches that). Null: nothing is asked.
   */
  async awaitAsks(callId: string, waitMs: number, nextRoundCallId: string): Promise<AskState | null> {
    const sql = this.ctx.storage.sql;
    const until = Date.now() + Math.min(waitMs, this.settings.maxWaitMs);
    for (;;) {
      const state = readAsks(sql, callId);
      if (!state || state.cancelled !== null) return state;
      if (allAnswered(state)) {
        this.transact(() => startRound(sql, callId, nextRoundCallId));
        return state;
      }
      if (Date.now() >= until) return state;
      await this.waiters.wait(askKey(callId), until - Date.now());
    }
  }

  /** The client cancelled the call: its questions stop waiting; answers the round it runs as. */
  cancelAsks(callId: string, reason: string, expiresAt: number): string {
    const round = this.transact(() => cancelAsks(this.shard, callId, reason, expiresAt));
    this.wakeBy(expiresAt);
    return round;
  }

  /** The call stopped asking (it ended, or gave up waiting): late answers are refused from now on. */
  closeAsks(callId: string): void {
    this.transact(() => closeAsks(this.ctx.storage.sql, callId));
  }

  /** A random key this shard keeps under `name` for the tenant's Worker to sign with (secrets.ts). */
  secret(name: string): Uint8Array {
    return this.transact(() => readOrMakeSecret(this.ctx.storage.sql, name));
  }

  /** Events from elsewhere (gate.changed from the gates): already masked by their sender. */
  publish(data: Record<string, JsonValue>): void {
    this.shard.emit(data);
  }

  /** An event token standing for the key named `key` with its scopes, seeing as `viewer`. */
  async issueToken(
    scopes: string[],
    key: string,
    ttlMs: number,
    viewer?: Viewer,
  ): Promise<{ token: string; expiresAt: number }> {
    const expiresAt = Date.now() + ttlMs;
    this.wakeBy(expiresAt);
    return { token: await issueToken(this.ctx.storage.sql, scopes, key, expiresAt, viewer), expiresAt };
  }

  checkToken(token: string): Promise<{ scopes: string[]; key: string; viewer?: Viewer } | null> {
    return checkToken(this.ctx.storage.sql, token, Date.now());
  }

  /** Whether this shard holds a row for the id: where a reader or a claim looks while an older map version is live. */
  holds(callId: string): boolean {
    return this.ctx.storage.sql.exec("SELECT 1 FROM calls WHERE call_id = ?", callId).toArray().length > 0;
  }

  /** A shard map change seals this shard: ids placed by a map older than `version` are refused from now on. */
  seal(version: number): number {
    return (this.sealedBelow = this.transact(() => writeSeal(this.ctx.storage.sql, version)));
  }

  /** How many of this shard's rows (it is shard `index`) no version of `newer` shard counts would find. */
  stranded(index: number, newer: number[]): number {
    return strandedRows(this.ctx.storage.sql, index, newer);
  }

  /** On the tenant's map object: its published shard map (map-holder.ts). */
  shardMap(tenant: string, initial: number): Promise<ShardMap> {
    return publishedMap(this.mapHolder(tenant), initial);
  }

  changeShards(tenant: string, shards: number, initial: number): Promise<ChangeOutcome> {
    return changeShards(this.mapHolder(tenant), shards, initial);
  }

  dropShardVersions(tenant: string, initial: number): Promise<DropOutcome> {
    return dropOldVersions(this.mapHolder(tenant), initial);
  }

  override async alarm(): Promise<void> {
    this.alarmAt = null;
    const next = this.transact(() => sweep(this.shard));
    if (next !== null) this.wakeBy(next);
    // On the tenant's map object, when a Worker started it: the export of the tenant's metrics.
    const slot = exportSlot(this.ctx.storage);
    if ((await slot.get()) === undefined) return;
    const { exportDueMetrics } = await telemetryLibrary();
    const env = this.env as unknown as Record<string, unknown>;
    const shardsOf = (tenant: string, initial: number) => this.shardsOf(tenant, initial);
    const exportAt = await exportDueMetrics(slot, env, readyTenant, shardsOf, Date.now());
    if (exportAt !== null) this.wakeBy(exportAt);
  }

  /**
   * On the tenant's map object: starts the OTLP export of the tenant's metrics unless it runs
   * (metrics-export.ts). `initialShards`: LEDGER_SHARDS, the map's first version.
   */
  async startMetricsExport(
    tenant: string,
    config: string | undefined,
    initialShards: number,
    intervalMs: number,
  ): Promise<void> {
    const { startMetricsExport } = await telemetryLibrary();
    const at = await startMetricsExport(
      exportSlot(this.ctx.storage),
      tenant,
      config,
      initialShards,
      intervalMs,
      Date.now(),
    );
    if (at !== null) this.wakeBy(at);
  }

  /** On the tenant's map object: every shard of every live map version. */
  private async shardsOf(tenant: string, initialShards: number): Promise<MetricsShard[]> {
    const ns = this.env.LEDGER;
    const shards = spanOf(await this.shardMap(tenant, initialShards));
    return Array.from({ length: shards }, (_, n) => ns.get(ns.idFromName(shardName(tenant, n))));
  }

  /**
   * One check-and-write, tried twice (see durable/transact.ts). A rolled-back run may have set the alarm:
   * forgetting when it is set makes the next wakeBy set it again.
   */
  private transact<T>(run: () => T): T {
    return transact(this.ctx.storage, run, () => (this.alarmAt = undefined));
  }

  /** Why a new row for the id may not be inserted here under the writer's map (none when the row exists). */
  private refusal(callId: string, at: ShardGuard | undefined): Moved | undefined {
    this.sealedBelow ??= readSeal(this.ctx.storage.sql);
    // The map's check first: it costs no SQL, and the row is looked up only when the map would refuse.
    const moved = insertRefusal(this.sealedBelow, callId, at);
    return moved && !this.holds(callId) ? moved : undefined;
  }

  private mapHolder(tenant: string): MapHolder {
    const ns = this.env.LEDGER;
    return {
      storage: this.ctx.storage,
      shard: (n) => ns.get(ns.idFromName(shardName(tenant, n))) as unknown as ShardCalls,
      now: () => Date.now(),
    };
  }

  /** A shard holding finished records needs its alarm for retention, even with nothing else due. */
  private prunesLater(): void {
    this.wakeBy(Date.now() + this.settings.pruneIntervalMs);
  }

  private wakeBy(at: number): void {
    if (this.alarmAt != null && this.alarmAt <= at) return;
    this.alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }

  /** The row once terminal, or as it is at `until`. */
  private async waitTerminal(callId: string, until: number) {
    let row = readRow(this.ctx.storage.sql, callId);
    while (row && !TERMINAL.has(row.status) && Date.now() < until) {
      await this.waiters.wait(callKey(callId), until - Date.now());
      row = readRow(this.ctx.storage.sql, callId);
    }
    return row;
  }
}

/** The call id a write that may insert a row would insert. */
function insertedId(write: Exclude<LedgerWrite, { op: "complete" }>): string {
  return write.op === "begin"
    ? write.input.callId
    : write.op === "commit"
      ? write.input.record.callId
      : write.record.callId;
}
