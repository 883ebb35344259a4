import type { CallRecord } from "./result";
import type { Progress, Tool } from "./tool";

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

/**
 * A call about to run (or to be parked for approval), as the pipeline knows it. The journal builds
 * its own claim from it: what identifies the call's arguments, and what the tool's policy allows.
 */
export interface CallToClaim {
  callId: string;
  tool: Tool;
  /** The arguments as parsed, unmasked (before any beforeCall rewrite). */
  args: unknown;
  /** running: about to run; pending: parked for approval. */
  status: "running" | "pending";
  /** An admin approved this parked call: pending → running for the same id and arguments. */
  approved: boolean;
  /**
   * The record so far (masked), stored as the row's first state. Read it only to store it: the
   * pipeline builds it when first read (a journal that defers the claim may never need it).
   */
  readonly record: CallRecord;
}

/**
 * Where records live and where idempotency is decided (the ledger Durable Object in the Worker).
 * Without one the pipeline still works; it just cannot replay.
 */
export interface CallJournal {
  /** Claims the call id in one check-and-write. Concurrent duplicates wait for the first one's outcome. */
  begin(call: CallToClaim): Promise<JournalClaim>;
  /**
   * Stores the terminal record (also for calls rejected before begin). A journal that deferred the
   * claim of a read-only call answers a JournalEnd when the id turned out to be taken.
   */
  finish(record: CallRecord): Promise<void | JournalEnd>;
  /**
   * A claimed call is about to go on elsewhere (detached): its claim, for the host that continues it.
   * The journal keeps tracking the call until release(), so a hand-off that fails can still finish here.
   */
  handOff?(callId: string): Promise<HandOff | undefined>;
  /** The latest progress of a running call, for its record and its watchers (a journal may coalesce). */
  progress?(callId: string, progress: Progress): void;
}

/** A claimed call handed to another host: the token that lets it finish the record. */
export interface HandOff {
  owner: string;
  /** The other host took the call: this journal stops watching it and will not finish it. */
  release(): void;
}
