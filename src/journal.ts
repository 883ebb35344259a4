import type { JsonValue } from "./json";
import type { CallRecord } from "./result";

/** What claiming a call id found. */
export type JournalClaim =
  /**
   * signal: aborted when the call is cancelled from elsewhere (POST /v1/calls/:id/cancel reaching a
   * queued or running call); the pipeline combines it with options.signal.
   */
  | { kind: "new"; signal?: AbortSignal; watch?: ClaimWatch }
  /** The same id with the same tool and arguments already finished: its outcome, not a new run. */
  | { kind: "replay"; record: CallRecord }
  /** The same id with another tool or other arguments. */
  | { kind: "conflict"; message: string };

/**
 * What a journal offers a claimed call that waits at a gate. While it waits, a cancel can be accepted
 * before the call starts: the journal watches for cancels from then on, and is asked once more when
 * the slot comes, so that a call cancelled meanwhile never starts.
 */
export interface ClaimWatch {
  /** The call starts waiting in a gate queue: watch for cancels now, not only after the usual delay. */
  queued(): void;
  /** The call got its slot after waiting: false when a cancel was accepted meanwhile. Throws when it cannot tell. */
  mayStart(): Promise<boolean>;
}

/**
 * What finishing a call found when its id was never claimed up front (a journal may skip the claim of a
 * short read-only call and store its outcome in one write): the id was already recorded, so that outcome
 * stands instead of this run's.
 */
export type JournalEnd = { kind: "replay"; record: CallRecord } | { kind: "conflict"; message: string };

export interface JournalBegin {
  callId: string;
  tool: string;
  /** hashJson({ tool, args }) of the validated arguments as the model sent them. */
  argsHash: string;
  /** running: about to run; pending: parked for approval. */
  status: "running" | "pending";
  /** Set when an admin approved a parked call: pending → running for the same id and hash. */
  approved?: boolean;
  /**
   * The arguments as parsed, unmasked: given with status "pending" so that an approval can run the
   * call later. The ledger keeps them only until the call is decided.
   */
  args?: JsonValue;
  /** The record so far (masked), stored as the row's first state. */
  record: CallRecord;
  /** The tool's policy says running it twice has no side effect: a journal may defer the claim. */
  readOnly?: boolean;
  /** The tool's policy says it is safe to repeat: a call whose outcome was lost may run again. */
  idempotent?: boolean;
}

/**
 * Where records live and where idempotency is decided (the ledger Durable Object in the Worker).
 * Without one the pipeline still works; it just cannot replay.
 */
export interface CallJournal {
  /** Claims the call id in one check-and-write. Concurrent duplicates wait for the first one's outcome. */
  begin(entry: JournalBegin): Promise<JournalClaim>;
  /**
   * Stores the terminal record (also for calls rejected before begin). A journal that deferred the
   * claim of a read-only call answers a JournalEnd when the id turned out to be taken.
   */
  finish(record: CallRecord): Promise<void | JournalEnd>;
}
