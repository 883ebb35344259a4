import { hashJson } from "../../src/hash";
import type { JsonValue } from "../../src/json";
import type { CallJournal, CallToClaim, ClaimWatch, HandOff, JournalClaim, JournalEnd } from "../../src/journal";
import type { CallRecord, Progress } from "../../src/result";
import type { CallSurface } from "../../src/contract/surface";
import type { UserRef } from "../../src/contract/users";
import type { BeginOutcome, LedgerClaim, LedgerWrite, WriteOutcome } from "./types";
import { toolError } from "../../src/errors";
import { callDurable, DurableUnavailable } from "../durable/call";
import type { LedgerAddress, LedgerStub, Placement } from "./address";
import { RECORD_DELAY_MS, storeAfterAnswer, unstoredClaim } from "./after-answer";
import type { Moved, ShardGuard } from "./shard-map";
import { submitWrite } from "./writes";
import { mayStart, watchCall } from "./watch";
import { storedUser } from "./viewer";

export interface LedgerJournalOptions {
  /** The tenant's ledger shards (tenantLedger). */
  ledger: LedgerAddress;
  /**
   * How long a running call's row lives without renewal before it turns `unknown`. The journal renews
   * it while the call is alive (queued at a gate, running, retrying), so this bounds how late a dead
   * Worker is noticed, not how long a tool may run. Default 60 s.
   */
  leaseMs?: number;
  /**
   * How long a claimed call runs before its journal starts watching for cancels (and renewing its
   * lease): calls shorter than this cost no watch RPC, and a cancel reaches one within about this
   * long. A call that waits at a gate is watched from the moment it queues. Default 250 ms.
   */
  watchDelayMs?: number;
  /**
   * How long a read-only call's claim is deferred: one that ends sooner is stored by one commit() and
   * is not cancellable meanwhile (it is unknown to the ledger). Default 1 s.
   */
  deferMs?: number;
  /** The owner token of an approved call (from the ledger's decision): this journal finishes it. */
  owner?: string;
  /**
   * The name of the key making the calls (never the key): its records are that key's, which a
   * call-scope key alone may read, and their ids are taken for every other key.
   */
  key?: string;
  /**
   * The user the calls are made for: kept with each new record and its events; a person reads the
   * records made for them, and the id is taken for every other user (even of the same key).
   */
  user?: UserRef;
  /** Where the calls came in (HTTP, MCP, a service binding): kept with each new record. */
  surface?: CallSurface;
  /**
   * The request's ctx.waitUntil: a group of writes this request sends for others outlives its
   * response, and each call keeps the request alive until it is recorded. Cloudflare tears down a
   * request whose client went away at once unless work is pending in waitUntil: kept alive, its
   * request.signal aborts, so the call leaves its gate queue or sees ctx.signal and ends cancelled
   * instead of being cut off (a record left running, a slot held until its lease ends).
   */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Writes are grouped only with writes of the same scope (writes.ts). A Durable Object that runs
   * calls (a Runner) gives its own: I/O made in one object cannot settle promises of another, even
   * in the same isolate, so two objects' writes must never travel in one group.
   */
  writeScope?: string;
  /**
   * When a read-only call that ends within deferMs is stored: "before-answer" (default: its answer
   * waits for the commit, so a repeated id answers the recorded outcome) or "after-answer" (its answer
   * goes at once; the record follows within recordDelayMs plus one round trip, see after-answer.ts).
   */
  readOnlyRecords?: "before-answer" | "after-answer";
  /** With "after-answer": how long a record waits for this isolate's others (default RECORD_DELAY_MS). */
  recordDelayMs?: number;
}

/** How long a running row lives without renewal (see LedgerJournalOptions.leaseMs). */
export const DEFAULT_LEASE_MS = 60_000;
/** See LedgerJournalOptions.watchDelayMs and deferMs. */
export const DEFAULT_WATCH_DELAY_MS = 250;
export const DEFAULT_DEFER_MS = 1_000;

interface Claimed {
  /** The owner token once the id is claimed; a deferred claim resolves it (or undefined) when settled. */
  owner: string | Promise<string | undefined>;
  /** Set for a deferred claim: what commit() checks if the id was never claimed. */
  argsHash?: string;
  stop(): void;
  /** Ends the request's keep-alive for this call (see LedgerJournalOptions.waitUntil). */
  done: () => void;
  /** A deferred claim: claim the id now (the call queues, or goes on elsewhere). */
  claimNow?: () => void;
  /** Progress not yet written: its latest value, and whether a write is due or under way. */
  progress?: { latest: Progress; writing: boolean; lastAt: number };
}

/** A running call's progress reaches its record at most this often (the latest value wins). */
export const PROGRESS_INTERVAL_MS = 1_000;
/** Placements of one write: a shard refusing a stale map names the newer one, so a second try is the norm. */
const PLACE_TRIES = 3;

const isMoved = (outcome: { kind: string }): outcome is Moved => outcome.kind === "moved";

/**
 * A shard that is overloaded or unreachable ends the call as `busy` with when to retry: a result the model can act on.
 */
function asBusy(error: unknown): never {
  if (!(error instanceof DurableUnavailable)) throw error;
  throw toolError("busy", error.message, { retryAfterMs: error.retryAfterMs });
}

/**
 * The ledger's claim of a call: its arguments by hash (the same id with other arguments is a
 * conflict), the unmasked arguments only while it waits for approval, and the tool's policy flags.
 */
export function claimOf(call: CallToClaim, argsHash = argsHashOf(call)): LedgerClaim {
  const { tool } = call;
  const pending = call.status === "pending";
  return {
    callId: call.callId,
    tool: tool.name,
    argsHash,
    status: call.status,
    ...(call.approved ? { approved: true } : {}),
    // The ledger keeps the unmasked arguments of a parked call so that an approval can run it.
    ...(pending ? { args: call.args as JsonValue } : {}),
    record: call.record,
    ...(tool.policy.readOnly ? { readOnly: true } : {}),
    ...(tool.policy.idempotent ? { idempotent: true } : {}),
  };
}

/** What tells the same call from another under one id: its tool and arguments, by hash. */
function argsHashOf(call: CallToClaim): string {
  return hashJson({ tool: call.tool.name, args: call.args });
}

/**
 * A read-only call about to run, not approved, not detached: its claim is deferred (see
 * createLedgerJournal). A journal finishing an owner's call never defers.
 */
function defers(call: CallToClaim): boolean {
  const { policy } = call.tool;
  return policy.readOnly === true && call.status === "running" && !call.approved && policy.execution !== "detached";
}

/**
 * The CallJournal of the Worker: every call id lives on one ledger shard (hash of the id), where
 * begin() is one synchronous check-and-write. A claimed running call gets a watch loop
 * (watch.ts) that renews its lease and turns a cancel request (from any request, any
 * isolate) into an abort of its signal, from watchDelayMs into the call or as soon as it queues at
 * a gate; a call that waited asks its shard once more before it starts, so a cancel accepted while
 * it waited always holds it back.
 *
 * Read-only calls defer the claim: running one twice has no side effect, so a call that ends within
 * deferMs stores its outcome with one commit() (one Durable Object round trip instead of two),
 * and a taken id still answers with the recorded outcome. One still running by then is claimed and
 * watched like any other, so it shows as running and can be cancelled.
 */
export function createLedgerJournal(options: LedgerJournalOptions): CallJournal {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const watchDelayMs = options.watchDelayMs ?? DEFAULT_WATCH_DELAY_MS;
  const deferMs = options.deferMs ?? DEFAULT_DEFER_MS;
  const claimed = new Map<string, Claimed>();
  const key = options.key ?? null;
  const user = storedUser(options.user);
  const surface = options.surface ?? null;
  const shards = options.ledger;
  const stubFor = (callId: string) => () => shards.for(callId);
  /** The write group of a shard, within this journal's scope (see writeScope). */
  const groupOf = (place: Placement) =>
    options.writeScope === undefined ? place.name : `${options.writeScope}|${place.name}`;
  /** Where this journal's records stored after their answer are met by a repeated id: its scope in its tenant. */
  const unstoredScope = `${options.writeScope ?? ""}|${shards.tenant}`;
  const afterAnswer = options.readOnlyRecords === "after-answer";
  const target = (callId: string, owner: string) => ({ stub: stubFor(callId), callId, owner, leaseMs });

  /** One RPC to the call's shard (see durable/call.ts); an overloaded or unreachable shard makes the call `busy`. */
  function ledgerCall<T>(callId: string, run: (ledger: LedgerStub) => Promise<T>): Promise<T> {
    return callDurable(stubFor(callId), run).catch(asBusy);
  }

  /**
   * A shard refused to insert the id (see shard-map.ts insertRefusal): learn the map it names, forget where the id was.
   */
  async function placeAgain(callId: string, moved: Moved, tries: number): Promise<void> {
    if (tries >= PLACE_TRIES)
      throw toolError("busy", `The ledger's shard map for ${callId} kept changing; try again.`, {
        retryAfterMs: 1_000,
      });
    await shards.learn(moved.version, callId).catch(asBusy);
  }

  /**
   * A write grouped with this isolate's other writes of its scope to the shard holding the id, else its
   * home under the newest map (see writes.ts and address.ts); placed again when the shard refuses it.
   */
  async function write(callId: string, entry: LedgerWrite, delayMs?: number): Promise<WriteOutcome> {
    for (let tries = 1; ; tries++) {
      const place = await shards.place(callId).catch(asBusy);
      const context = { stub: place.stub, waitUntil: options.waitUntil, ...(delayMs ? { delayMs } : {}) };
      const outcome = await submitWrite(groupOf(place), { ...entry, at: place.at }, context).catch(asBusy);
      if (outcome.kind === "error") throw new Error(outcome.message);
      if (!isMoved(outcome)) return outcome;
      await placeAgain(callId, outcome, tries);
    }
  }

  /** One RPC that may insert the id, to the shard placing it; placed again when the shard refuses it. */
  async function placedCall<T extends { kind: string }>(
    callId: string,
    run: (ledger: LedgerStub, at: ShardGuard) => Promise<T | Moved>,
  ): Promise<T> {
    for (let tries = 1; ; tries++) {
      const place = await shards.place(callId).catch(asBusy);
      const outcome = await callDurable(place.stub, (ledger) => run(ledger, place.at)).catch(asBusy);
      if (!isMoved(outcome)) return outcome;
      await placeAgain(callId, outcome, tries);
    }
  }

  /**
   * A grouped begin or commit: its outcome, or when a running duplicate holds the id (`wait`, nothing
   * written), the same write sent alone, which joins the duplicate (bounded) and answers its outcome.
   */
  async function claimWrite(
    callId: string,
    entry: LedgerWrite,
    alone: (ledger: LedgerStub, at: ShardGuard) => Promise<BeginOutcome | Moved>,
  ): Promise<BeginOutcome> {
    const outcome = await write(callId, entry);
    if (outcome.kind === "wait") return placedCall(callId, alone);
    if (outcome.kind === "new" || outcome.kind === "replay" || outcome.kind === "conflict") return outcome;
    throw new Error(`The ledger answered ${outcome.kind} to ${entry.op}.`);
  }

  /** Keeps the request alive until the answered function is called (see LedgerJournalOptions.waitUntil). */
  function keepAlive(): () => void {
    if (!options.waitUntil) return () => {};
    let done!: () => void;
    options.waitUntil(new Promise<void>((resolve) => (done = resolve)));
    return done;
  }

  /** A claim of the same id made earlier in this request (a duplicate in a batch) is watched no more. */
  function replace(callId: string): void {
    const earlier = claimed.get(callId);
    earlier?.stop();
    earlier?.done();
  }

  /** An `unknown` call of an idempotent tool may run again under the same id. */
  function beginInput(entry: LedgerClaim, owner: string) {
    return { ...entry, owner, leaseMs, key, user, surface, ...(entry.idempotent ? { rerunUnknown: true } : {}) };
  }

  /**
   * A read-only call: claimed only if it is still running after deferMs, or once it queues at a gate.
   * Most end sooner, so its claim (the record so far, built and masked by the pipeline when read) is
   * made only then.
   */
  function defer(call: CallToClaim, argsHash: string): JournalClaim {
    const callId = call.callId;
    const controller = new AbortController();
    let stopWatch: (() => void) | undefined;
    let stopped = false;
    let fired = false;
    let settle!: (owner: string | undefined) => void;
    const owner = new Promise<string | undefined>((resolve) => (settle = resolve));
    const claimNow = async () => {
      if (fired || stopped) return;
      fired = true;
      clearTimeout(timer);
      const token = crypto.randomUUID();
      // joinMs 0: a running duplicate elsewhere is not waited for here; commit() joins it at the end.
      const outcome = await placedCall(callId, (ledger, at) =>
        ledger.begin({ ...beginInput(claimOf(call, argsHash), token), joinMs: 0 }, at),
      ).catch(() => undefined);
      const claimedIt = outcome?.kind === "new";
      if (claimedIt && !stopped) stopWatch = watchCall(target(callId, token), controller, 0).stop;
      settle(claimedIt ? token : undefined);
    };
    const timer = setTimeout(() => void claimNow(), deferMs);
    claimed.set(callId, {
      owner,
      argsHash: argsHash,
      done: keepAlive(),
      claimNow: () => void claimNow(),
      stop() {
        stopped = true;
        stopWatch?.();
        // Not yet claiming: it never will, and finish() commits instead. (Once claiming, the claim settles it.)
        if (!fired) {
          clearTimeout(timer);
          settle(undefined);
        }
      },
    });
    // A call told that it waits at a gate (past the limiter's quiet time) is claimed (visible,
    // cancellable) from then on.
    const waits: ClaimWatch = {
      queued: () => void claimNow(),
      mayStart: async () => {
        // Never claimed: nobody could cancel it (it was unknown to the ledger), so it may start.
        if (!fired) return true;
        const token = await owner;
        return token === undefined || mayStart(target(callId, token));
      },
    };
    return { kind: "new", signal: controller.signal, watch: waits };
  }

  /**
   * Writes the call's latest progress, at most once per PROGRESS_INTERVAL_MS: a burst of updates
   * costs one write now and one for the last value when the interval ends. Best effort: progress
   * is for watching, so a failed write only waits for the next update.
   */
  function sendProgress(callId: string, claim: Claimed): void {
    const state = claim.progress!;
    if (state.writing) return;
    const wait = state.lastAt + PROGRESS_INTERVAL_MS - Date.now();
    state.writing = true;
    const send = async () => {
      const owner = await claim.owner;
      const sent = state.latest;
      if (owner && claimed.get(callId) === claim) {
        await ledgerCall(callId, (ledger) => ledger.progress(callId, owner, sent)).catch(() => undefined);
      }
      state.lastAt = Date.now();
      state.writing = false;
      // A newer value arrived meanwhile: it goes out once the interval allows.
      if (state.latest !== sent && claimed.get(callId) === claim) sendProgress(callId, claim);
    };
    if (wait <= 0) void send();
    else setTimeout(() => void send(), wait);
  }

  /** The terminal record, as the claim (or its absence) decides: complete, commit or record. */
  async function store(record: CallRecord, claim: Claimed | undefined): Promise<void | JournalEnd> {
    const owner = (await claim?.owner) ?? options.owner;
    if (owner) {
      await write(record.callId, { op: "complete", owner, record });
    } else if (claim?.argsHash !== undefined && afterAnswer) {
      const input = { record, argsHash: claim.argsHash, key, user, surface };
      const delayMs = options.recordDelayMs ?? RECORD_DELAY_MS;
      storeAfterAnswer(
        unstoredScope,
        input,
        () => write(record.callId, { op: "commit", input }, delayMs),
        options.waitUntil,
      );
    } else if (claim?.argsHash !== undefined) {
      const input = { record, argsHash: claim.argsHash, key, user, surface };
      const outcome = await claimWrite(record.callId, { op: "commit", input }, (ledger, at) =>
        ledger.commit(input, at),
      );
      if (outcome.kind !== "new") return outcome;
    } else {
      // Unclaimed ids (rejected before begin) are recorded only if the id is still free.
      await write(record.callId, { op: "record", record, key, user, surface });
    }
  }

  return {
    async begin(call: CallToClaim): Promise<JournalClaim> {
      // A detached call goes on elsewhere at once: its claim is made now, not deferred.
      if (!options.owner && defers(call)) {
        const argsHash = argsHashOf(call);
        // Answered here a moment ago, its record still on its way: the ledger's answer, from memory.
        const who = { key, userId: user?.id ?? null };
        const earlier = afterAnswer ? unstoredClaim(unstoredScope, call.callId, who, argsHash) : undefined;
        if (earlier) return earlier;
        replace(call.callId);
        return defer(call, argsHash);
      }
      const entry = claimOf(call);
      // One owner per claim, so the same id twice in one batch is a duplicate, not the same claimant.
      const owner = options.owner ?? crypto.randomUUID();
      const input = beginInput(entry, owner);
      const outcome = await claimWrite(entry.callId, { op: "begin", input }, (ledger, at) => ledger.begin(input, at));
      if (outcome.kind !== "new" || entry.status === "pending") return outcome;
      replace(entry.callId);
      const controller = new AbortController();
      const watching = watchCall(target(entry.callId, owner), controller, watchDelayMs);
      claimed.set(entry.callId, { owner, stop: watching.stop, done: keepAlive() });
      return {
        kind: "new",
        signal: controller.signal,
        watch: { queued: watching.now, mayStart: () => mayStart(target(entry.callId, owner)) },
      };
    },

    async handOff(callId: string): Promise<HandOff | undefined> {
      const claim = claimed.get(callId);
      if (!claim) return undefined;
      claim.claimNow?.();
      const owner = await claim.owner;
      if (!owner) return undefined;
      const release = () => {
        if (claimed.get(callId) !== claim) return;
        claimed.delete(callId);
        claim.stop();
        claim.done();
      };
      return { owner, release };
    },

    progress(callId: string, progress: Progress): void {
      const claim = claimed.get(callId);
      if (!claim) return;
      if (claim.progress) claim.progress.latest = progress;
      else claim.progress = { latest: progress, writing: false, lastAt: 0 };
      sendProgress(callId, claim);
    },

    async finish(record: CallRecord): Promise<void | JournalEnd> {
      const claim = claimed.get(record.callId);
      claimed.delete(record.callId);
      claim?.stop();
      try {
        return await store(record, claim);
      } finally {
        claim?.done();
      }
    },
  };
}
