import type { JsonValue } from "../../src/json";
import type { ApprovalInfo, CallEntry } from "../../src/contract/calls";
import type { CallRecord, CallStatus } from "../../src/result";
import type { CallSurface } from "../../src/contract/surface";
import type { UserRef } from "../../src/contract/users";
import type { Moved, ShardGuard } from "./shard-map";

// The wire shapes are the HTTP API's (src/contract/); the ledger answers them as they are.
export type { ApprovalInfo, ResultPage } from "../../src/contract/calls";
export type LedgerEntry = CallEntry;
export type ApprovalState = ApprovalInfo["state"];

import type { Viewer } from "./viewer";
export type { Viewer } from "./viewer";

/** A call's claim as the ledger keeps it: built by the journal from the pipeline's CallToClaim. */
export interface LedgerClaim {
  callId: string;
  tool: string;
  /**
   * hashJson({ tool, args }) of the arguments as the model sent them: the same id with other arguments is a conflict.
   */
  argsHash: string;
  /** running: about to run; pending: parked for approval. */
  status: "running" | "pending";
  /** Set when an admin approved a parked call: pending → running for the same id and hash. */
  approved?: boolean;
  /**
   * The arguments as parsed, unmasked: kept with a pending call so that an approval can run it later,
   * and only until the call is decided.
   */
  args?: JsonValue;
  /** The record so far (masked), stored as the row's first state. */
  record: CallRecord;
  /** The tool's policy says running it twice has no side effect: the journal may defer the claim. */
  readOnly?: boolean;
  /** The tool's policy says it is safe to repeat: a call whose outcome was lost may run again. */
  idempotent?: boolean;
}

/** begin() over RPC: the claim plus who claims it and for how long. */
export interface BeginInput extends LedgerClaim {
  /** Token of the claiming journal; only it may finish a running row it claimed. */
  owner: string;
  /** How long a running row lives without renewal before it turns `unknown`. */
  leaseMs: number;
  /** An `unknown` row of an idempotent tool may be claimed again instead of replayed. */
  rerunUnknown?: boolean;
  /** Longest wait for a running duplicate before answering that it is still running. */
  joinMs?: number;
  /** The name of the key making the call (null: none); another key reusing the id gets `conflict`. */
  key: string | null;
  /** The user the call is made for (absent or null: none); another user reusing the id gets `conflict`. */
  user?: UserRef | null;
  /** Where the call came in; kept with a new row (absent or null: unknown). */
  surface?: CallSurface | null;
}

/** commit() over RPC: a deferred claim's terminal record, with what begin() would have checked. */
export interface CommitInput {
  record: CallRecord;
  argsHash: string;
  key: string | null;
  user?: UserRef | null;
  surface?: CallSurface | null;
  /** Longest wait for a running duplicate before answering that it is still running. */
  joinMs?: number;
}

export type BeginOutcome =
  | { kind: "new" }
  | { kind: "replay"; record: CallRecord }
  | { kind: "conflict"; message: string };

/** A check-and-write's answer; "wait" means a duplicate is running and the caller should join it. */
export type Claim = BeginOutcome | { kind: "wait" };

/**
 * One write of a group sent in one round trip (Ledger.writeMany): each is what its own method does.
 * `at`: the shard map placement of a write that may insert a new row (see shard-map.ts).
 */
export type LedgerWrite = (
  | { op: "begin"; input: BeginInput }
  | { op: "commit"; input: CommitInput }
  | { op: "complete"; owner: string; record: CallRecord }
  | { op: "record"; record: CallRecord; key: string | null; user?: UserRef | null; surface?: CallSurface | null }
) & { at?: ShardGuard };

/**
 * A grouped write's answer. `wait`: a begin or commit found its id held by a running duplicate, and
 * wrote nothing; the journal sends it again alone (begin() or commit()), which joins the duplicate.
 * `done`: what complete() or record() answer. `error`: this write threw and was rolled back alone.
 * `moved`: the shard refused to insert the id under the writer's map (the journal places it again).
 */
export type WriteOutcome = Claim | Moved | { kind: "done"; ok: boolean } | { kind: "error"; message: string };

export interface ListQuery {
  viewer: Viewer;
  tool?: string;
  status?: CallStatus;
  /** Only calls whose id starts with this. */
  callIdPrefix?: string;
  /** Only calls made with the key (or grant) of this name. */
  key?: string;
  /** Only calls made for the user of this id (the admin's filter; a viewer's own user narrows already). */
  user?: string;
  surface?: CallSurface;
  /** Only calls started at or after this time (ms). */
  since?: number;
  /** Only calls started at or before this time (ms). */
  until?: number;
  /** Keyset cursor: calls strictly older than this (startedAt, callId) pair. */
  before?: { startedAt: number; callId: string };
  limit: number;
  /** Only pending calls awaiting a decision (the approvals list). */
  awaitingApproval?: boolean;
}

/** A call an admin approved: what the approver runs through the pipeline, as `owner`. */
export interface ApprovedCall {
  call: { id: string; name: string; arguments: JsonValue | undefined };
  owner: string;
  record: CallRecord;
  /** The user the call was made for (from its row): the run keeps it (ctx.user, gates). */
  user?: UserRef;
}

export type Decision = "approve" | "deny";

/** Who decides a parked call: `user:<id>` or `key:<name>` (kept as decided_by), and whether as an admin. */
export interface Decider {
  by: string;
  admin: boolean;
}

export type DecideOutcome =
  | { ok: true; decision: "deny"; entry: LedgerEntry }
  | { ok: true; decision: "approve"; approved: ApprovedCall }
  | { ok: false; error: "not_found" | "not_pending"; entry?: LedgerEntry };

export type CancelOutcome =
  | { ok: true; state: "cancelled"; entry: LedgerEntry }
  /** Running: the claimant's journal is told and aborts the call where the runtime can reach it. */
  | { ok: true; state: "requested"; entry: LedgerEntry }
  | { ok: false; error: "not_found" | "finished"; entry?: LedgerEntry };

/** What a running call's journal learns when it renews its lease. */
export interface WatchOutcome {
  cancel: boolean;
  /** The row is no longer this owner's running call: stop renewing. */
  done: boolean;
}

export interface StoredEvent {
  id: number;
  type: string;
  data: JsonValue;
}

/** One of a shard's newest events, as a stream needs it to start just before it: its id and time. */
export interface RecentEvent {
  id: number;
  at: number;
}

/** A shard's newest events a viewer may see (newest first), and the id a stream starts after for none. */
export interface RecentEvents {
  events: RecentEvent[];
  last: number;
}

export interface EventBatch {
  events: StoredEvent[];
  /** The id to resume after (the newest id seen); -1 asks for "from now". */
  last: number;
}

/** tasks/update (inputs.ts): what became of a waiting call's answers. */
export type AnswerOutcome =
  | { ok: false; error: "not_found" }
  /** The answers kept for the call would pass MAX_CALL_ANSWERS_CHARS (src/ask.ts): nothing was stored. */
  | { ok: false; error: "too_large"; message: string }
  /** Not waiting, or none of the keys is an outstanding question: nothing changed (the spec's ignore). */
  | { ok: true; state: "ignored"; entry: LedgerEntry }
  /** Some questions are still open: the call goes on waiting for them. */
  | { ok: true; state: "waiting"; entry: LedgerEntry }
  /** Every question is answered: the row runs again as `owner`, with every answer so far. */
  | { ok: true; state: "resume"; owner: string; answers: Record<string, JsonValue>; entry: LedgerEntry };
